WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
  SELECT
    "day" AS slice_1,
    "country" AS slice_2,
    CAST("label" AS DOUBLE) AS label,
    CAST("score" AS DOUBLE) AS score,
    CAST("weight" AS DOUBLE) AS weight,
    CASE
      WHEN "label" IS NULL OR "score" IS NULL OR "user_id" IS NULL OR "weight" IS NULL
      THEN NULL
      ELSE CAST("weight" AS DOUBLE)
    END AS w,
    "user_id" AS query
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
    SUM(CASE WHEN IS_NAN(score) THEN 1 ELSE 0 END) AS n_bad_nan,
    MIN(CASE WHEN IS_NAN(score) THEN score END) AS bad_nan,
    SUM(
      CASE
        WHEN (
          weight < 0 OR IS_NAN(weight) OR IS_INFINITE(weight)
        )
        THEN 1
        ELSE 0
      END
    ) AS n_bad_weight,
    MIN(
      CASE WHEN (
        weight < 0 OR IS_NAN(weight) OR IS_INFINITE(weight)
      ) THEN weight END
    ) AS bad_weight
  FROM input
  GROUP BY
    slice_1,
    slice_2,
    label
), checks AS (
  /* checks: the input rules; error() refuses the query with the first rule the data breaks */
  SELECT
    CASE
      WHEN SUM(CASE WHEN NOT label IN (0, 1) THEN n_all ELSE 0 END) > 0
      THEN FAIL(
        CONCAT(
          CAST('sqlmetrics: label column ''label'' must be 0 or 1 (or boolean) (for gauc): ' AS VARCHAR),
          CAST(SUM(CASE WHEN NOT label IN (0, 1) THEN n_all ELSE 0 END) AS VARCHAR),
          CAST(' rows are not, e.g. ' AS VARCHAR),
          CAST(MIN(CASE WHEN NOT label IN (0, 1) THEN label END) AS VARCHAR)
        )
      )
      WHEN SUM(n_bad_nan) > 0
      THEN FAIL(
        CONCAT(
          CAST('sqlmetrics: score column ''score'' must not be NaN: ' AS VARCHAR),
          CAST(SUM(n_bad_nan) AS VARCHAR),
          CAST(' rows are not, e.g. ' AS VARCHAR),
          CAST(MIN(bad_nan) AS VARCHAR)
        )
      )
      WHEN SUM(n_bad_weight) > 0
      THEN FAIL(
        CONCAT(
          CAST('sqlmetrics: weight column ''weight'' must be finite and >= 0: ' AS VARCHAR),
          CAST(SUM(n_bad_weight) AS VARCHAR),
          CAST(' rows are not, e.g. ' AS VARCHAR),
          CAST(MIN(bad_weight) AS VARCHAR)
        )
      )
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
), query_rows AS (
  /* query_rows: the used rows of the source with their query, as positive and negative */
  /* weight. Read by the metrics that sort within each query (gauc): sorting the rows of */
  /* each query is cheaper than first building a query x score histogram. */
  SELECT
    slice_1,
    slice_2,
    query,
    score,
    CASE WHEN label = 1 THEN w ELSE 0 END AS w_pos,
    CASE WHEN label = 1 THEN 0 ELSE w END AS w_neg
  FROM input
  WHERE
    NOT w IS NULL
), m_gauc AS (
  WITH m_gauc_totals AS (
    /* gauc: group AUC, the weighted mean of the per-query AUC */
    /*   GAUC = Σ_u g_u · AUC_u / Σ_u g_u   over queries u that have both classes, */
    /* with g_u = the query's summed weight (weighting 'impressions', the default: its row */
    /* count without weights), its positives' weight ('positives') or 1 ('uniform'). */
    /* AUC_u is the query's Mann–Whitney statistic, ties counting ½ (see auc.sql), from one */
    /* sort of the query's rows: with P, N the query's positive and negative weight and */
    /* N(<=s), P(<=s) the weight at or below score s (ties included, a RANGE frame), */
    /*   AUC_u = (P·N + Σ_pos w·N(<=s) − Σ_neg w·P(<=s)) / (2·P·N). */
    /* Only the rows of two-class queries are sorted; one-class queries are counted. */
    /* gauc_groups counts the queries used, gauc_skipped the one-class queries left out. */
    SELECT
      slice_1,
      slice_2,
      query,
      SUM(w_pos) AS pos,
      SUM(w_neg) AS neg
    FROM query_rows
    GROUP BY
      slice_1,
      slice_2,
      query
  ), m_gauc_per_query AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CAST((
        SUM(w_pos) * SUM(w_neg) + SUM(w_pos * neg_up_to) - SUM(w_neg * pos_up_to)
      ) AS DOUBLE) / (
        2 * SUM(w_pos) * SUM(w_neg)
      ) AS auc,
      CASE 'impressions'
        WHEN 'impressions'
        THEN SUM(w_pos + w_neg)
        WHEN 'positives'
        THEN SUM(w_pos)
        ELSE 1
      END AS group_weight
    FROM (
      SELECT
        slice_1,
        slice_2,
        query,
        w_pos,
        w_neg,
        SUM(w_neg) OVER (
          PARTITION BY slice_1, slice_2, query
          ORDER BY score
          RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS neg_up_to,
        SUM(w_pos) OVER (
          PARTITION BY slice_1, slice_2, query
          ORDER BY score
          RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS pos_up_to
      FROM query_rows AS r
      WHERE
        EXISTS(
          SELECT
            1
          FROM m_gauc_totals AS t
          WHERE
            r.slice_1 IS NOT DISTINCT FROM t.slice_1
            AND r.slice_2 IS NOT DISTINCT FROM t.slice_2
            AND r.query = t.query
            AND t.pos > 0
            AND t.neg > 0
        )
    ) AS ranked
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    CAST(SUM(group_weight * auc) AS DOUBLE) / NULLIF(SUM(group_weight), 0) AS gauc,
    CAST(SUM(used) AS BIGINT) AS gauc_groups,
    CAST(SUM(1 - used) AS BIGINT) AS gauc_skipped
  FROM (
    SELECT
      slice_1,
      slice_2,
      auc,
      group_weight,
      1 AS used
    FROM m_gauc_per_query AS per_query
    UNION ALL
    SELECT
      slice_1,
      slice_2,
      NULL,
      NULL,
      0
    FROM m_gauc_totals AS totals
    WHERE
      NOT (
        pos > 0 AND neg > 0
      )
  ) AS queries
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
  m_gauc.gauc AS gauc,
  COALESCE(m_gauc.gauc_groups, 0) AS gauc_groups,
  COALESCE(m_gauc.gauc_skipped, 0) AS gauc_skipped
FROM row_counts
LEFT JOIN m_gauc
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_gauc.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_gauc.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1,
  row_counts.slice_2
