m_recall_at_10 AS (
  WITH m_recall_at_10_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      hits,
      0 AS relevant,
      0 AS judged
    FROM cutoff_hits
    WHERE
      ties = 'average' AND min_relevance = CAST(1.0 AS DOUBLE) AND k = 10
    /* recall@k: the share of a list's relevant judged items (label >= min_relevance) found in */
    /* the top k positions, R@k = hits@k / R, R counting relevant judged items retrieved or not. */
    /* Positions by score, descending. A peer group at positions a..e (see ranked.sql) with */
    /* g rows shares them evenly: each relevant row counts (min(e, k) − a + 1)/g hits, which */
    /* under ties = 'average' is the exact mean over every order of a tie group (hits@k from */
    /* cutoff_hits.sql). */
    /* average = 'macro': the mean of R@k over lists; 'micro': Σ hits@k / Σ R over lists. */
    /* A list without a relevant judged item is skipped and counted (empty = 'skip') or */
    /* scores 0 (empty = 'zero'); a list without judgments is skipped. */
    UNION ALL
    /* every list, even one without judgments */
    SELECT
      slice_1,
      slice_2,
      query,
      0,
      relevant,
      judged
    FROM list_floors
    WHERE
      ties = 'average' AND min_relevance = CAST(1.0 AS DOUBLE)
  ), m_recall_at_10_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      SUM(hits) AS hits,
      SUM(relevant) AS relevant,
      SUM(relevant) > 0 AS used
    FROM m_recall_at_10_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(CASE WHEN used THEN COALESCE(hits / CAST(NULLIF(relevant, 0) AS DOUBLE), 0) END) AS recall,
    COUNT(CASE WHEN used THEN 1 END) AS recall_queries,
    COUNT(CASE WHEN NOT used THEN 1 END) AS recall_skipped
  FROM m_recall_at_10_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
