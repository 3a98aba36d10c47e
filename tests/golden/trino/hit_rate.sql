m_hit_rate AS (
  WITH m_hit_rate_first_relevant AS (
    /* hit_rate: the share of lists with a relevant item (label >= min_relevance) in the top */
    /* k positions (k NULL: anywhere in the list). Positions by score, descending. */
    /* Under ties the first relevant item matters: it lies in the first peer group holding */
    /* one (first_hits.sql), at positions a..e with g rows of which m relevant. The list hits */
    /* for sure when e <= k and never when a > k; when the group straddles k with */
    /* s = k − a + 1 of its positions inside, it misses only if all s go to its g − m */
    /* non-relevant rows, with probability Π_{t < s} (g − m − t)/(g − t) (0 when s > g − m). */
    /* average = 'macro': that share; 'micro': Σ hits@k / Σ R over lists, hits@k the */
    /* relevant items in the top k (cutoff_hits.sql) and R the list's relevant judged items */
    /* (the HR@K of recommender papers). Each form's rows are read only under its own */
    /* average: an engine drops the other form's steps as unread (DuckDB then computes no */
    /* hits@k, and no first peer groups for micro). */
    /* A list without a relevant judged item is skipped and counted (empty = 'skip') or */
    /* scores 0 (empty = 'zero'); a list without judgments is skipped. */
    SELECT
      slice_1,
      slice_2,
      query,
      a,
      g,
      m
    FROM first_hits
    WHERE
      ties = 'average' AND min_relevance = CAST(1.0 AS DOUBLE)
  ), m_hit_rate_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE WHEN a + g - 1 <= (
        a + g - 1
      ) THEN 1 ELSE 0 END AS hit,
      0 AS hits,
      0 AS relevant,
      0 AS judged
    FROM m_hit_rate_first_relevant AS first_relevant
    WHERE
      a <= a
    UNION ALL
    /* every list, even one without a relevant item or without judgments */
    SELECT
      slice_1,
      slice_2,
      query,
      0,
      0,
      relevant,
      judged
    FROM list_floors
    WHERE
      ties = 'average' AND min_relevance = CAST(1.0 AS DOUBLE)
  ), m_hit_rate_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      SUM(hit) AS hit,
      SUM(hits) AS hits,
      SUM(relevant) AS relevant,
      SUM(relevant) > 0 AS used
    FROM m_hit_rate_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(CASE WHEN used THEN hit END) AS hit_rate,
    COUNT(CASE WHEN used THEN 1 END) AS hit_rate_queries,
    COUNT(CASE WHEN NOT used THEN 1 END) AS hit_rate_skipped
  FROM m_hit_rate_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
