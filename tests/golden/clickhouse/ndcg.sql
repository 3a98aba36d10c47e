m_ndcg AS (
  WITH m_ndcg_positions_at_k AS (
    /* ndcg: normalized discounted cumulative gain at k, the mean over lists of */
    /*   NDCG@k = DCG@k / IDCG@k,   DCG@k = Σ_{p <= k} gain(rel_p) / log2(p + 1), */
    /* positions p by score, descending; IDCG@k is the DCG@k of the list's judged items in */
    /* the ideal order (relevance descending). gain(rel) = 2^rel − 1 ('exponential') or rel */
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
  ), m_ndcg_ideal AS (
    SELECT
      slice_1,
      slice_2,
      query,
      label,
      n,
      SUM(n) OVER (
        PARTITION BY slice_1, slice_2, query
        ORDER BY label DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS last_position
    FROM judged
  ), m_ndcg_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      (
        POWER(2, label) - 1
      ) * (
        d_end.discount_through - d_start.discount_through
      ) / CAST(last_position - first_position + 1 AS Nullable(Float64)) AS dcg,
      0 AS idcg,
      0 AS relevant,
      0 AS judged
    FROM ranked
    JOIN m_ndcg_positions_at_k AS d_start
      ON d_start.p = first_position - 1
    JOIN m_ndcg_positions_at_k AS d_end
      ON d_end.p = LEAST(last_position, last_position)
    WHERE
      ties = 'average'
      AND min_relevance = CAST(1.0 AS Nullable(Float64))
      AND first_position <= first_position
    UNION ALL
    /* the ideal order: the n judged items of a label fill positions last_position − n + 1 .. */
    /* (label 0 earns nothing: judged.sql leaves it out) */
    SELECT
      slice_1,
      slice_2,
      query,
      0,
      (
        POWER(2, label) - 1
      ) * (
        d_end.discount_through - d_start.discount_through
      ),
      0,
      0
    FROM m_ndcg_ideal AS ideal
    JOIN m_ndcg_positions_at_k AS d_start
      ON d_start.p = LEAST(last_position - n, last_position)
    JOIN m_ndcg_positions_at_k AS d_end
      ON d_end.p = LEAST(last_position, last_position)
    UNION ALL
    /* every list, with its relevant and judged items (retrieved or not) */
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
      ties = 'average' AND min_relevance = CAST(1.0 AS Nullable(Float64))
  ), m_ndcg_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE
        WHEN SUM(relevant) > 0
        THEN SUM(dcg) / CAST(SUM(idcg) AS Nullable(Float64))
      END AS ndcg
    FROM m_ndcg_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(ndcg) AS ndcg,
    CAST(COUNT(ndcg) AS Nullable(Int64)) AS ndcg_queries,
    CAST(COUNT(*) AS Nullable(Int64)) - CAST(COUNT(ndcg) AS Nullable(Int64)) AS ndcg_skipped
  FROM m_ndcg_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
