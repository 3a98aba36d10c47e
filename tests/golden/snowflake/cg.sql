m_cg AS (
  WITH m_cg_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      (
        POWER(2, label) - 1
      ) * (
        LEAST_IGNORE_NULLS(last_position, last_position) - first_position + 1
      ) / CAST(last_position - first_position + 1 AS DOUBLE) AS cg,
      0 AS relevant,
      0 AS judged
    FROM ranked
    WHERE
      ties = 'average'
      AND min_relevance = CAST(1.0 AS DOUBLE)
      AND first_position <= first_position
    /* cg: cumulative gain at k, the mean over lists of */
    /*   CG@k = Σ_{p <= k} gain(rel_p), */
    /* positions p by score, descending; gain(rel) = 2^rel − 1 ('exponential') or rel */
    /* ('linear'); k NULL means the whole list. */
    /* A peer group at positions a..e (see ranked.sql) shares them evenly: each of its g rows */
    /* earns gain(rel)·(min(e, k) − a + 1)/g, which under ties = 'average' is the exact mean */
    /* over every order of a tie group. */
    /* A list without a relevant judged item (label >= min_relevance) is skipped and counted */
    /* (empty = 'skip') or scores 0 (empty = 'zero'); a list without judgments is skipped. */
    UNION ALL
    /* every list, with its relevant and judged items (retrieved or not) */
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
  ), m_cg_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE WHEN SUM(relevant) > 0 THEN SUM(cg) END AS cg
    FROM m_cg_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(cg) AS cg,
    COUNT(cg) AS cg_queries,
    COUNT(*) - COUNT(cg) AS cg_skipped
  FROM m_cg_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
