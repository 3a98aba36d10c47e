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
      WHEN "label" IS NULL OR "score" IS NULL OR "weight" IS NULL
      THEN NULL
      ELSE CAST("weight" AS DOUBLE)
    END AS w
  FROM "logs"."impressions"
), base AS (
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
  SELECT
    slice_1,
    slice_2,
    COUNT(*) AS n_all,
    COUNT(w) AS n,
    SUM(w) AS w,
    SUM(
      CASE
        WHEN (
          label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
        )
        THEN 1
        ELSE 0
      END
    ) AS n_bad_target,
    MIN(
      CASE
        WHEN (
          label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
        )
        THEN label
      END
    ) AS bad_target,
    SUM(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN 1 ELSE 0 END) AS n_bad_nan,
    MIN(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN score END) AS bad_nan,
    SUM(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN 1 ELSE 0 END) AS n_bad_inf,
    MIN(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN score END) AS bad_inf,
    SUM(
      CASE
        WHEN (
          weight < 0
          OR weight = CAST('NaN' AS DOUBLE)
          OR ABS(weight) = CAST('inf' AS DOUBLE)
        )
        THEN 1
        ELSE 0
      END
    ) AS n_bad_weight,
    MIN(
      CASE
        WHEN (
          weight < 0
          OR weight = CAST('NaN' AS DOUBLE)
          OR ABS(weight) = CAST('inf' AS DOUBLE)
        )
        THEN weight
      END
    ) AS bad_weight
  FROM input
  GROUP BY
    slice_1,
    slice_2
), checks AS (
  /* checks: the input rules; error() refuses the query with the first rule the data breaks */
  SELECT
    CASE
      WHEN SUM(n_bad_target) > 0
      THEN CAST('sqlmetrics: label column \'label\' must be a finite number (for median_absolute_error): ' || CAST(SUM(n_bad_target) AS VARCHAR) || ' rows are not, e.g. ' || CAST(MIN(bad_target) AS VARCHAR) AS INT)
      WHEN SUM(n_bad_nan) > 0
      THEN CAST('sqlmetrics: score column \'score\' must not be NaN: ' || CAST(SUM(n_bad_nan) AS VARCHAR) || ' rows are not, e.g. ' || CAST(MIN(bad_nan) AS VARCHAR) AS INT)
      WHEN SUM(n_bad_inf) > 0
      THEN CAST('sqlmetrics: score column \'score\' must be finite (for median_absolute_error): ' || CAST(SUM(n_bad_inf) AS VARCHAR) || ' rows are not, e.g. ' || CAST(MIN(bad_inf) AS VARCHAR) AS INT)
      WHEN SUM(n_bad_weight) > 0
      THEN CAST('sqlmetrics: weight column \'weight\' must be finite and >= 0: ' || CAST(SUM(n_bad_weight) AS VARCHAR) || ' rows are not, e.g. ' || CAST(MIN(bad_weight) AS VARCHAR) AS INT)
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
), m_median_absolute_error AS (
  WITH m_median_absolute_error_errors AS (
    /* median_absolute_error: the weighted median of |ŷ − y| */
    /* Over the distinct absolute errors e₁ < e₂ < … (rows of weight > 0) with cumulative */
    /* weight W(eᵢ) and total W: the mean of the first eᵢ with W(eᵢ) >= W / 2 and the first */
    /* with W(eᵢ) > W / 2. They are the same error unless W(eᵢ) = W / 2 exactly, so without */
    /* weights this is the ordinary median (the mean of the two middle values of an even */
    /* count), and with weights scikit-learn's "averaged inverted CDF" weighted percentile. */
    /* The one regression metric that sorts: the distinct errors of each slice. NULL on an */
    /* empty slice. */
    SELECT
      slice_1,
      slice_2,
      ABS(score - label) AS e,
      SUM(w) AS w
    FROM input
    WHERE
      w > 0
    GROUP BY
      slice_1,
      slice_2,
      ABS(score - label)
  ), m_median_absolute_error_cumulative AS (
    SELECT
      slice_1,
      slice_2,
      e,
      SUM(w) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY e
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS w_through,
      SUM(w) OVER (PARTITION BY slice_1, slice_2) AS w_total
    FROM m_median_absolute_error_errors AS errors
  )
  SELECT
    slice_1,
    slice_2,
    (
      MIN(CASE WHEN w_through >= w_total / 2 THEN e END) + MIN(CASE WHEN w_through > w_total / 2 THEN e END)
    ) / 2 AS median_absolute_error
  FROM m_median_absolute_error_cumulative AS cumulative
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
  m_median_absolute_error.median_absolute_error AS median_absolute_error
FROM row_counts
LEFT JOIN m_median_absolute_error
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_median_absolute_error.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_median_absolute_error.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1,
  row_counts.slice_2
