WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
  SELECT
    `day` AS slice_1,
    `country` AS slice_2,
    CAST(`label` AS FLOAT64) AS label,
    CAST(`score` AS FLOAT64) AS score,
    CAST(`weight` AS FLOAT64) AS weight,
    CASE
      WHEN `label` IS NULL OR `score` IS NULL OR `weight` IS NULL
      THEN NULL
      ELSE CAST(`weight` AS FLOAT64)
    END AS w
  FROM `logs`.`impressions`
), base AS (
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
  SELECT
    slice_1,
    slice_2,
    COUNT(*) AS n_all,
    COUNT(w) AS n,
    SUM(w) AS w,
    SUM(w * label) AS w_label,
    SUM(w * ABS(score - label)) AS abs_error,
    SUM(w * (
      score - label
    ) * (
      score - label
    )) AS squared_error,
    SUM(w * (
      score - label
    )) AS error,
    SUM(CASE WHEN label <> 0 THEN w * ABS((
      score - label
    ) / label) END) AS abs_percentage_error,
    SUM(CASE WHEN label <> 0 THEN w END) AS w_nonzero_label,
    COUNT(CASE WHEN label = 0 THEN w END) AS n_zero_label,
    MAX(CASE WHEN w > 0 THEN ABS(score - label) END) AS max_abs_error,
    SUM(CASE WHEN (
      IS_NAN(label) OR IS_INF(label)
    ) THEN 1 ELSE 0 END) AS n_bad_target,
    MIN(CASE WHEN (
      IS_NAN(label) OR IS_INF(label)
    ) THEN label END) AS bad_target,
    SUM(CASE WHEN IS_NAN(score) THEN 1 ELSE 0 END) AS n_bad_nan,
    MIN(CASE WHEN IS_NAN(score) THEN score END) AS bad_nan,
    SUM(CASE WHEN IS_INF(score) THEN 1 ELSE 0 END) AS n_bad_inf,
    MIN(CASE WHEN IS_INF(score) THEN score END) AS bad_inf,
    SUM(CASE WHEN (
      weight < 0 OR IS_NAN(weight) OR IS_INF(weight)
    ) THEN 1 ELSE 0 END) AS n_bad_weight,
    MIN(CASE WHEN (
      weight < 0 OR IS_NAN(weight) OR IS_INF(weight)
    ) THEN weight END) AS bad_weight
  FROM input
  GROUP BY
    slice_1,
    slice_2
), checks AS (
  /* checks: the input rules; error() refuses the query with the first rule the data breaks */
  SELECT
    CASE
      WHEN SUM(n_bad_target) > 0
      THEN ERROR(
        'sqlmetrics: label column \'label\' must be a finite number (for mae, mape, max_error, mean_error, median_absolute_error, mse, r2, rmse): ' || CAST(SUM(n_bad_target) AS STRING) || ' rows are not, e.g. ' || CAST(MIN(bad_target) AS STRING)
      )
      WHEN SUM(n_bad_nan) > 0
      THEN ERROR(
        'sqlmetrics: score column \'score\' must not be NaN: ' || CAST(SUM(n_bad_nan) AS STRING) || ' rows are not, e.g. ' || CAST(MIN(bad_nan) AS STRING)
      )
      WHEN SUM(n_bad_inf) > 0
      THEN ERROR(
        'sqlmetrics: score column \'score\' must be finite (for mae, mape, max_error, mean_error, median_absolute_error, mse, r2, rmse): ' || CAST(SUM(n_bad_inf) AS STRING) || ' rows are not, e.g. ' || CAST(MIN(bad_inf) AS STRING)
      )
      WHEN SUM(n_bad_weight) > 0
      THEN ERROR(
        'sqlmetrics: weight column \'weight\' must be finite and >= 0: ' || CAST(SUM(n_bad_weight) AS STRING) || ' rows are not, e.g. ' || CAST(MIN(bad_weight) AS STRING)
      )
    END AS failure
  FROM base
), row_counts AS (
  /* row_counts: n_rows (used) and n_excluded per slice, the spine of the result */
  SELECT
    slice_1,
    slice_2,
    CAST(COALESCE(SUM(n), 0) AS INT64) AS n_rows,
    CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS INT64) AS n_excluded
  FROM base
  GROUP BY
    slice_1,
    slice_2
), residuals AS (
  /* residuals: per slice, the weighted sums of the residuals e = score − label (the */
  /* prediction minus the target) that the regression metrics read. The row-level sums */
  /* are aggregates of base (the one aggregation over the source, see compose.py): */
  /*   w_label              Σ w·y                    (the target's weighted mean is w_label / w) */
  /*   abs_error            Σ w·|e| */
  /*   squared_error        Σ w·e² */
  /*   error                Σ w·e */
  /*   abs_percentage_error Σ w·|e / y|   over rows with y ≠ 0 */
  /*   w_nonzero_label      Σ w           over rows with y ≠ 0 */
  /*   n_zero_label         rows with y = 0 (left out of mape) */
  /*   max_abs_error        max |e|       over rows of weight > 0 */
  SELECT
    slice_1,
    slice_2,
    SUM(w) AS w,
    SUM(w_label) AS w_label,
    SUM(abs_error) AS abs_error,
    SUM(squared_error) AS squared_error,
    SUM(error) AS error,
    SUM(abs_percentage_error) AS abs_percentage_error,
    SUM(w_nonzero_label) AS w_nonzero_label,
    SUM(n_zero_label) AS n_zero_label,
    MAX(max_abs_error) AS max_abs_error
  FROM base
  WHERE
    n > 0
  GROUP BY
    slice_1,
    slice_2
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS `day`,
  row_counts.slice_2 AS `country`,
  row_counts.n_rows,
  row_counts.n_excluded,
  m_mae.mae AS mae,
  m_mape.mape AS mape,
  COALESCE(m_mape.mape_skipped, 0) AS mape_skipped,
  m_max_error.max_error AS max_error,
  m_mean_error.mean_error AS mean_error,
  m_median_absolute_error.median_absolute_error AS median_absolute_error,
  m_mse.mse AS mse,
  m_r2.r2 AS r2,
  m_rmse.rmse AS rmse
FROM row_counts
LEFT JOIN m_mae
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_mae.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_mae.slice_2
LEFT JOIN m_mape
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_mape.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_mape.slice_2
LEFT JOIN m_max_error
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_max_error.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_max_error.slice_2
LEFT JOIN m_mean_error
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_mean_error.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_mean_error.slice_2
LEFT JOIN m_median_absolute_error
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_median_absolute_error.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_median_absolute_error.slice_2
LEFT JOIN m_mse
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_mse.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_mse.slice_2
LEFT JOIN m_r2
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_r2.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_r2.slice_2
LEFT JOIN m_rmse
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_rmse.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_rmse.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1 NULLS LAST,
  row_counts.slice_2 NULLS LAST
