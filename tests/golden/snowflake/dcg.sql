m_dcg AS (
  WITH m_dcg_positions_at_k AS (
    /* dcg: discounted cumulative gain at k, the mean over lists of */
    /*   DCG@k = Σ_{p <= k} gain(rel_p) / log2(p + 1), */
    /* positions p by score, descending; gain(rel) = 2^rel − 1 ('exponential') or rel */
    /* ('linear'); k NULL means the whole list. */
    /* A peer group at positions a..e (see ranked.sql) shares them evenly: each of its g rows */
    /* earns gain(rel)·(D(min(e, k)) − D(a − 1))/g, D the running discount of positions.sql. */
    /* Under ties = 'average' that is the exact mean over every order of a tie group. */
    /* A list without a relevant judged item (label >= min_relevance) is skipped and counted */
    /* (empty = 'skip') or scores 0 (empty = 'zero'); a list without judgments is skipped. */
    /* the running sums of this call's cutoff (positions.sql holds one table per cutoff in use) */
    SELECT
      p,
      discount_through
    FROM positions
    WHERE
      k = 0
  ), m_dcg_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      (
        POWER(2, label) - 1
      ) * (
        d_end.discount_through - d_start.discount_through
      ) / CAST(last_position - first_position + 1 AS DOUBLE) AS dcg,
      0 AS relevant,
      0 AS judged
    FROM ranked
    JOIN m_dcg_positions_at_k AS d_start
      ON d_start.p = first_position - 1
    JOIN m_dcg_positions_at_k AS d_end
      ON d_end.p = LEAST_IGNORE_NULLS(last_position, last_position)
    WHERE
      ties = 'average'
      AND min_relevance = CAST(1.0 AS DOUBLE)
      AND first_position <= first_position
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
  ), m_dcg_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE WHEN SUM(relevant) > 0 THEN SUM(dcg) END AS dcg
    FROM m_dcg_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(dcg) AS dcg,
    COUNT(dcg) AS dcg_queries,
    COUNT(*) - COUNT(dcg) AS dcg_skipped
  FROM m_dcg_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
