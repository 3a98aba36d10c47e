WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
  SELECT
    "day" AS slice_1,
    "country" AS slice_2,
    CAST("label" AS DOUBLE) AS label,
    CAST("score" AS DOUBLE) AS score,
    CASE
      WHEN "label" IS NULL OR "score" IS NULL OR "user_id" IS NULL
      THEN NULL
      ELSE CAST(1 AS DOUBLE)
    END AS w,
    "user_id" AS query,
    NULL AS item
  FROM "logs"."impressions"
), base AS (
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
  SELECT
    slice_1,
    slice_2,
    label,
    COUNT(*) AS n_all,
    COUNT(w) AS n,
    SUM(w) AS w,
    SUM(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN 1 ELSE 0 END) AS n_bad_nan,
    MIN(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN score END) AS bad_nan
  FROM input
  GROUP BY
    slice_1,
    slice_2,
    label
), checks AS (
  /* checks: the input rules; error() refuses the query with the first rule the data breaks */
  SELECT
    CASE
      WHEN SUM(
        CASE
          WHEN (
            label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
          )
          THEN n_all
          ELSE 0
        END
      ) > 0
      THEN CAST('sqlmetrics: label column \'label\' must be a finite relevance >= 0 (for rank_corr): ' || CAST(SUM(
        CASE
          WHEN (
            label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
          )
          THEN n_all
          ELSE 0
        END
      ) AS VARCHAR) || ' rows are not, e.g. ' || CAST(MIN(
        CASE
          WHEN (
            label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
          )
          THEN label
        END
      ) AS VARCHAR) AS INT)
      WHEN SUM(n_bad_nan) > 0
      THEN CAST('sqlmetrics: score column \'score\' must not be NaN: ' || CAST(SUM(n_bad_nan) AS VARCHAR) || ' rows are not, e.g. ' || CAST(MIN(bad_nan) AS VARCHAR) AS INT)
    END AS failure
  FROM base
), row_counts AS (
  /* row_counts: n_rows (used) and n_excluded per slice, the spine of the result */
  SELECT
    slice_1,
    slice_2,
    CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n_rows,
    CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS BIGINT) AS n_excluded
  FROM base
  GROUP BY
    slice_1,
    slice_2
), ideal_rows AS (
  /* ideal_rows: every list's judged items, the ideal ranking's rows */
  SELECT
    slice_1,
    slice_2,
    query,
    label
  FROM input
  WHERE
    NOT w IS NULL
), judged AS (
  /* judged: the relevance histogram of every list's judged items, the ideal ranking's */
  /* input. Impressions: a list's judged items are its own rows. Judgments + run: every */
  /* judged item of the list's query, retrieved or not (a list without judgments has none). */
  SELECT
    slice_1,
    slice_2,
    query,
    label,
    COUNT(*) AS n
  FROM ideal_rows
  GROUP BY
    slice_1,
    slice_2,
    query,
    label
), m_rank_corr AS (
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
      COUNT(*) AS n
    FROM input
    WHERE
      NOT w IS NULL
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
      c.slice_1,
      c.slice_2,
      c.query,
      c.score,
      GREATEST_IGNORE_NULLS(c.label, l.label) AS hi,
      LEAST_IGNORE_NULLS(c.label, l.label) AS lo,
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
        CAST(SUM(n_hi) AS DOUBLE) * SUM(n_lo) + SUM(CAST(n_hi AS DOUBLE) * lo_through) - SUM(CAST(n_lo AS DOUBLE) * hi_through)
      ) / 2 AS won
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
          ORDER BY score
          RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS lo_through,
        SUM(n_hi) OVER (
          PARTITION BY slice_1, slice_2, query, hi, lo
          ORDER BY score
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
      CAST(n AS DOUBLE) * (
        n - 1
      ) / 4 AS won,
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
    SELECT
      slice_1,
      slice_2,
      query,
      0 AS won,
      0 AS n,
      CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN n ELSE 0 END AS relevant,
      n AS judged
    FROM judged
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
        ) AS DOUBLE)
        WHEN SUM(judged) > 0 AND 'skip' = 'zero'
        THEN 0
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
    COUNT(rc) AS rank_corr_queries,
    COUNT(*) - COUNT(rc) AS rank_corr_skipped
  FROM m_rank_corr_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows,
  row_counts.n_excluded,
  m_rank_corr.rank_corr AS rank_corr,
  COALESCE(m_rank_corr.rank_corr_queries, 0) AS rank_corr_queries,
  COALESCE(m_rank_corr.rank_corr_skipped, 0) AS rank_corr_skipped
FROM row_counts
LEFT JOIN m_rank_corr
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_rank_corr.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_rank_corr.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1,
  row_counts.slice_2
