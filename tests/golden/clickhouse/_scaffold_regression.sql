WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
  SELECT
    "day" AS slice_1,
    "country" AS slice_2,
    CAST("label" AS Nullable(Float64)) AS label,
    CAST("score" AS Nullable(Float64)) AS score,
    CAST("weight" AS Nullable(Float64)) AS weight,
    CASE
      WHEN "label" IS NULL OR "score" IS NULL OR "weight" IS NULL
      THEN NULL
      ELSE CAST("weight" AS Nullable(Float64))
    END AS w
  FROM "logs"."impressions"
), base AS (
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
  SELECT
    slice_1,
    slice_2,
    CAST(COUNT(*) AS Nullable(Int64)) AS n_all,
    CAST(COUNT(w) AS Nullable(Int64)) AS n,
    SUM(w) AS w,
    SUM(w * label) AS w_label,
    SUM(w * GREATEST(score - label, -(
      score - label
    ))) AS abs_error,
    SUM(w * (
      score - label
    ) * (
      score - label
    )) AS squared_error,
    SUM(w * (
      score - label
    )) AS error,
    SUM(
      CASE
        WHEN label <> 0
        THEN w * GREATEST(
          (
            score - label
          ) / CAST(label AS Nullable(Float64)),
          -(
            (
              score - label
            ) / CAST(label AS Nullable(Float64))
          )
        )
      END
    ) AS abs_percentage_error,
    SUM(CASE WHEN label <> 0 THEN w END) AS w_nonzero_label,
    CAST(COUNT(CASE WHEN label = 0 THEN w END) AS Nullable(Int64)) AS n_zero_label,
    MAX(CASE WHEN w > 0 THEN GREATEST(score - label, -(
      score - label
    )) END) AS max_abs_error,
    MIN(CASE WHEN w > 0 THEN label END) AS min_label,
    MAX(CASE WHEN w > 0 THEN label END) AS max_label,
    SUM(CASE WHEN (
      isNaN(label) OR isInfinite(label)
    ) THEN 1 ELSE 0 END) AS n_bad_target,
    MIN(CASE WHEN (
      isNaN(label) OR isInfinite(label)
    ) THEN label END) AS bad_target,
    SUM(CASE WHEN isNaN(score) THEN 1 ELSE 0 END) AS n_bad_nan,
    MIN(CASE WHEN isNaN(score) THEN score END) AS bad_nan,
    SUM(CASE WHEN isInfinite(score) THEN 1 ELSE 0 END) AS n_bad_inf,
    MIN(CASE WHEN isInfinite(score) THEN score END) AS bad_inf,
    SUM(
      CASE WHEN (
        weight < 0 OR isNaN(weight) OR isInfinite(weight)
      ) THEN 1 ELSE 0 END
    ) AS n_bad_weight,
    MIN(
      CASE WHEN (
        weight < 0 OR isNaN(weight) OR isInfinite(weight)
      ) THEN weight END
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
      THEN CAST(materialize(
        'sqlmetrics: label column ''label'' must be a finite number (for mae, mape, max_error, mean_error, median_absolute_error, mse, r2, rmse): ' || CAST(SUM(n_bad_target) AS Nullable(String)) || CASE WHEN SUM(n_bad_target) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_target) = ROUND(MIN(bad_target))
          AND GREATEST(MIN(bad_target), -(
            MIN(bad_target)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_target) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_target) AS Nullable(String))
        END
      ) AS Int32)
      WHEN SUM(n_bad_nan) > 0
      THEN CAST(materialize(
        'sqlmetrics: score column ''score'' must not be NaN: ' || CAST(SUM(n_bad_nan) AS Nullable(String)) || CASE WHEN SUM(n_bad_nan) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_nan) = ROUND(MIN(bad_nan))
          AND GREATEST(MIN(bad_nan), -(
            MIN(bad_nan)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_nan) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_nan) AS Nullable(String))
        END
      ) AS Int32)
      WHEN SUM(n_bad_inf) > 0
      THEN CAST(materialize(
        'sqlmetrics: score column ''score'' must be finite (for mae, mape, max_error, mean_error, median_absolute_error, mse, r2, rmse): ' || CAST(SUM(n_bad_inf) AS Nullable(String)) || CASE WHEN SUM(n_bad_inf) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_inf) = ROUND(MIN(bad_inf))
          AND GREATEST(MIN(bad_inf), -(
            MIN(bad_inf)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_inf) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_inf) AS Nullable(String))
        END
      ) AS Int32)
      WHEN SUM(n_bad_weight) > 0
      THEN CAST(materialize(
        'sqlmetrics: weight column ''weight'' must be finite and >= 0: ' || CAST(SUM(n_bad_weight) AS Nullable(String)) || CASE WHEN SUM(n_bad_weight) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_weight) = ROUND(MIN(bad_weight))
          AND GREATEST(MIN(bad_weight), -(
            MIN(bad_weight)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_weight) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_weight) AS Nullable(String))
        END
      ) AS Int32)
      WHEN (
        SELECT
          MAX(total)
        FROM (
          SELECT
            SUM(w) AS total
          FROM base
          GROUP BY
            slice_1,
            slice_2
        ) AS slice_weights
      ) >= CAST(1e+308 AS Nullable(Float64))
      THEN CAST(materialize(
        'sqlmetrics: column ''weight'': the weights of a slice sum to more than 1e+308 (' || CAST((
          SELECT
            MAX(total)
          FROM (
            SELECT
              SUM(w) AS total
            FROM base
            GROUP BY
              slice_1,
              slice_2
          ) AS slice_weights
        ) AS Nullable(String)) || '), beyond the float range; rescale them (e.g. divide the column by its largest value): every metric but the weighted counts is unchanged by a common factor'
      ) AS Int32)
    END AS failure
  FROM base
), row_counts AS (
  /* row_counts: n_rows (used) and n_excluded per slice, the spine of the result */
  SELECT
    slice_1,
    slice_2,
    CAST(COALESCE(SUM(n), 0) AS Nullable(Int64)) AS n_rows,
    CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS Nullable(Int64)) AS n_excluded
  FROM base
  GROUP BY
    slice_1,
    slice_2
), residuals AS (
  /* residuals: per slice, the weighted sums of the residuals e = score − label (the */
  /* prediction minus the target) that the regression metrics read. The row-level sums */
  /* are aggregates of base (the one aggregation over the source), which the regression */
  /* family adds to it (sqlmetrics/metrics/regression/__init__.py): */
  /*   w_label              Σ w·y                    (the target's weighted mean is w_label / w) */
  /*   abs_error            Σ w·|e| */
  /*   squared_error        Σ w·e² */
  /*   error                Σ w·e */
  /*   abs_percentage_error Σ w·|e / y|   over rows with y ≠ 0 */
  /*   w_nonzero_label      Σ w           over rows with y ≠ 0 */
  /*   n_zero_label         rows with y = 0 (left out of mape) */
  /*   max_abs_error        max |e|       over rows of weight > 0 */
  /*   min_label, max_label the smallest and largest y over rows of weight > 0 */
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
    MAX(max_abs_error) AS max_abs_error,
    MIN(min_label) AS min_label,
    MAX(max_label) AS max_label
  FROM base
  WHERE
    n > 0
  GROUP BY
    slice_1,
    slice_2
), error_hist AS (
  /* error_hist: each slice's absolute errors |ŷ − y| as a score histogram, for the median */
  /* of the errors (median_absolute_error): per distinct error, of the rows of weight > 0, */
  /* the weight w_pos (w_neg is 0) with the error negated as its score, so that the running */
  /* sums of score_cum (the weight at or above a score) walk the errors upwards: tp at */
  /* score −e is W(≤ e), the weight of the errors up to e. */
  SELECT
    slice_1,
    slice_2,
    -GREATEST(score - label, -(
      score - label
    )) AS score,
    SUM(w) AS w_pos,
    CAST(0 AS Nullable(Float64)) AS w_neg
  FROM input
  WHERE
    w > 0
  GROUP BY
    slice_1,
    slice_2,
    GREATEST(score - label, -(
      score - label
    ))
), error_cum AS (
  /* score_cum: the confusion counts at every entry of a score histogram (hist), for */
  /* the metrics that walk the scores in order (auc, average_precision, their one-vs-rest */
  /* forms per class, the median of the errors): tp and fp, the weight of the positives */
  /* and of the negatives scoring at or above the entry's score (predicting "score >= s" */
  /* positive). The RANGE frames take every entry of a tied score together, so all entries */
  /* of a score have its tp and fp. One sort per slice, shared by the metrics. (Engines */
  /* that spread rows over workers read score_cum_distributed.sql instead.) */
  SELECT
    slice_1,
    slice_2,
    score,
    w_pos,
    w_neg,
    tp,
    fp,
    tie_pos,
    tie_neg,
    tp + fp - tie_pos - tie_neg + 1 AS rank_from,
    tp + fp AS rank_to,
    pos_total,
    neg_total
  FROM (
    SELECT
      slice_1,
      slice_2,
      score,
      w_pos,
      w_neg,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY score DESC
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS tp,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY score DESC
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS fp,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY score DESC
        RANGE BETWEEN CURRENT ROW AND CURRENT ROW
      ) AS tie_pos,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY score DESC
        RANGE BETWEEN CURRENT ROW AND CURRENT ROW
      ) AS tie_neg,
      SUM(w_pos) OVER (PARTITION BY slice_1, slice_2) AS pos_total,
      SUM(w_neg) OVER (PARTITION BY slice_1, slice_2) AS neg_total
    FROM error_hist
  ) AS cumulative
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows AS n_rows,
  row_counts.n_excluded AS n_excluded,
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
  row_counts.slice_1 ASC,
  row_counts.slice_2 ASC
SETTINGS prefer_column_name_to_alias = 1, join_use_nulls = 1, aggregate_functions_null_for_empty = 1, short_circuit_function_evaluation = 'enable', query_plan_max_optimizations_to_apply = 1000000
