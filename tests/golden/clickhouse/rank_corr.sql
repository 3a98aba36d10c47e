m_rank_corr AS (
  WITH m_rank_corr_cells AS (
    /* rank_corr: rank correlation of score and label within each list, averaged over lists: */
    /*   RC = Σ_{pairs u<v} (1 + sgn((s_u − s_v)·(l_u − l_v))) / 2  /  (n(n − 1)/2), */
    /* so a pair ordered by score as by label earns 1, a pair tied in score or in label ½, */
    /* a reversed pair 0 (RC = (1 + Kendall's τ_a)/2). No tie policy applies: a tied pair's */
    /* ½ is already the mean over both orders. */
    /* Pairs with different labels are counted per pair of label levels (hi > lo) like an */
    /* AUC: with the rows of both levels sorted by score and N_lo(<= s), N_hi(<= s) the rows */
    /* at or below s, the pairs won, ties counting ½, are */
    /*   (N_hi·N_lo + Σ_hi N_lo(<= s) − Σ_lo N_hi(<= s)) / 2; */
    /* pairs within one level add ½ each. Counts are multiplied as DOUBLE: pair counts of a */
    /* list of 3·10^9 rows overflow BIGINT (an error under Spark's ANSI mode). */
    /* A list with fewer than 2 rows is skipped; a list without a relevant judged item */
    /* (label >= min_relevance) is skipped and counted (empty = 'skip') or scores 0 */
    /* (empty = 'zero'); a list without judgments is skipped. */
    SELECT
      slice_1,
      slice_2,
      query,
      label,
      score,
      CAST(COUNT(*) AS Nullable(Int64)) AS n
    FROM input
    WHERE
      NOT (
        w IS NULL
      )
    GROUP BY
      slice_1,
      slice_2,
      query,
      label,
      score
  ), m_rank_corr_levels AS (
    SELECT
      slice_1,
      slice_2,
      query,
      label,
      SUM(n) AS n
    FROM m_rank_corr_cells AS cells
    GROUP BY
      slice_1,
      slice_2,
      query,
      label
  ), m_rank_corr_level_pairs AS (
    /* each cell against every other label level of its list */
    SELECT
      c.slice_1 AS slice_1,
      c.slice_2 AS slice_2,
      c.query AS query,
      c.score AS score,
      GREATEST(c.label, l.label) AS hi,
      LEAST(c.label, l.label) AS lo,
      CASE WHEN c.label > l.label THEN c.n ELSE 0 END AS n_hi,
      CASE WHEN c.label < l.label THEN c.n ELSE 0 END AS n_lo
    FROM m_rank_corr_cells AS c
    JOIN m_rank_corr_levels AS l
      ON c.slice_1 IS NOT DISTINCT FROM l.slice_1
      AND c.slice_2 IS NOT DISTINCT FROM l.slice_2
      AND c.query = l.query
      AND c.label <> l.label
  ), m_rank_corr_won AS (
    SELECT
      slice_1,
      slice_2,
      query,
      (
        CAST(SUM(n_hi) AS Nullable(Float64)) * SUM(n_lo) + SUM(CAST(n_hi AS Nullable(Float64)) * lo_through) - SUM(CAST(n_lo AS Nullable(Float64)) * hi_through)
      ) / CAST(2 AS Nullable(Float64)) AS won
    FROM (
      SELECT
        slice_1,
        slice_2,
        query,
        hi,
        lo,
        n_hi,
        n_lo,
        SUM(n_lo) OVER (
          PARTITION BY slice_1, slice_2, query, hi, lo
          ORDER BY score ASC
          RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS lo_through,
        SUM(n_hi) OVER (
          PARTITION BY slice_1, slice_2, query, hi, lo
          ORDER BY score ASC
          RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS hi_through
      FROM m_rank_corr_level_pairs AS level_pairs
    ) AS sorted
    GROUP BY
      slice_1,
      slice_2,
      query,
      hi,
      lo
  ), m_rank_corr_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CAST(n AS Nullable(Float64)) * (
        n - 1
      ) / CAST(4 AS Nullable(Float64)) AS won,
      n AS n,
      0 AS relevant,
      0 AS judged
    FROM m_rank_corr_levels AS levels
    UNION ALL
    SELECT
      slice_1,
      slice_2,
      query,
      won,
      0 AS n,
      0 AS relevant,
      0 AS judged
    FROM m_rank_corr_won AS won
    UNION ALL
    /* every list's relevant and judged items (for a run: retrieved or not) */
    SELECT
      slice_1,
      slice_2,
      query,
      0 AS won,
      0 AS n,
      SUM(CASE WHEN label >= CAST(1.0 AS Nullable(Float64)) THEN 1 ELSE 0 END) AS relevant,
      CAST(COUNT(*) AS Nullable(Int64)) AS judged
    FROM ideal_rows
    GROUP BY
      slice_1,
      slice_2,
      query
  ), m_rank_corr_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE
        WHEN SUM(n) < 2
        THEN NULL
        WHEN SUM(relevant) > 0
        THEN 2 * SUM(won) / CAST(SUM(n) * (
          SUM(n) - 1
        ) AS Nullable(Float64))
      END AS rc
    FROM m_rank_corr_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(rc) AS rank_corr,
    CAST(COUNT(rc) AS Nullable(Int64)) AS rank_corr_queries,
    CAST(COUNT(*) AS Nullable(Int64)) - CAST(COUNT(rc) AS Nullable(Int64)) AS rank_corr_skipped
  FROM m_rank_corr_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
