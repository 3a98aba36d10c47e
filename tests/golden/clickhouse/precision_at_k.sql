m_precision_at_10 AS (
  WITH m_precision_at_10_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      hits,
      0 AS relevant,
      0 AS judged
    FROM cutoff_hits
    WHERE
      ties = 'average' AND min_relevance = CAST(1.0 AS Nullable(Float64)) AND k = 10
    /* precision@k: the share of the top k positions holding a relevant item (label >= */
    /* min_relevance), P@k = hits@k / k, divided by k even for a list shorter than k. */
    /* Positions by score, descending. A peer group at positions a..e (see ranked.sql) with */
    /* g rows shares them evenly: each relevant row counts (min(e, k) − a + 1)/g hits, which */
    /* under ties = 'average' is the exact mean over every order of a tie group (hits@k from */
    /* cutoff_hits.sql). */
    /* average = 'macro': the mean of P@k over lists; 'micro': Σ hits@k / Σ k over lists */
    /* (the same number: every list divides by k). */
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
      ties = 'average' AND min_relevance = CAST(1.0 AS Nullable(Float64))
  ), m_precision_at_10_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE WHEN SUM(relevant) > 0 THEN SUM(hits) END AS hits
    FROM m_precision_at_10_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(hits / CAST(10 AS Nullable(Float64))) AS precision,
    CAST(COUNT(hits) AS Nullable(Int64)) AS precision_queries,
    CAST(COUNT(*) AS Nullable(Int64)) - CAST(COUNT(hits) AS Nullable(Int64)) AS precision_skipped
  FROM m_precision_at_10_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
