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
    SUM(
      CASE WHEN label <> 0 THEN w * ABS((
        score - label
      ) / CAST(label AS FLOAT64)) END
    ) AS abs_percentage_error,
    SUM(CASE WHEN label <> 0 THEN w END) AS w_nonzero_label,
    COUNT(CASE WHEN label = 0 THEN w END) AS n_zero_label,
    MAX(CASE WHEN w > 0 THEN ABS(score - label) END) AS max_abs_error,
    MIN(CASE WHEN w > 0 THEN label END) AS min_label,
    MAX(CASE WHEN w > 0 THEN label END) AS max_label,
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
        'sqlmetrics: label column \'label\' must be a finite number (for mae, mape, max_error, mean_error, median_absolute_error, mse, r2, rmse): ' || CAST(SUM(n_bad_target) AS STRING) || CASE WHEN SUM(n_bad_target) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_target) = ROUND(MIN(bad_target)) AND ABS(MIN(bad_target)) < 1e+15
          THEN CAST(CAST(MIN(bad_target) AS INT64) AS STRING)
          ELSE CAST(MIN(bad_target) AS STRING)
        END
      )
      WHEN SUM(n_bad_nan) > 0
      THEN ERROR(
        'sqlmetrics: score column \'score\' must not be NaN: ' || CAST(SUM(n_bad_nan) AS STRING) || CASE WHEN SUM(n_bad_nan) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_nan) = ROUND(MIN(bad_nan)) AND ABS(MIN(bad_nan)) < 1e+15
          THEN CAST(CAST(MIN(bad_nan) AS INT64) AS STRING)
          ELSE CAST(MIN(bad_nan) AS STRING)
        END
      )
      WHEN SUM(n_bad_inf) > 0
      THEN ERROR(
        'sqlmetrics: score column \'score\' must be finite (for mae, mape, max_error, mean_error, median_absolute_error, mse, r2, rmse): ' || CAST(SUM(n_bad_inf) AS STRING) || CASE WHEN SUM(n_bad_inf) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_inf) = ROUND(MIN(bad_inf)) AND ABS(MIN(bad_inf)) < 1e+15
          THEN CAST(CAST(MIN(bad_inf) AS INT64) AS STRING)
          ELSE CAST(MIN(bad_inf) AS STRING)
        END
      )
      WHEN SUM(n_bad_weight) > 0
      THEN ERROR(
        'sqlmetrics: weight column \'weight\' must be finite and >= 0: ' || CAST(SUM(n_bad_weight) AS STRING) || CASE WHEN SUM(n_bad_weight) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_weight) = ROUND(MIN(bad_weight)) AND ABS(MIN(bad_weight)) < 1e+15
          THEN CAST(CAST(MIN(bad_weight) AS INT64) AS STRING)
          ELSE CAST(MIN(bad_weight) AS STRING)
        END
      )
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
      ) >= CAST(1e+308 AS FLOAT64)
      THEN ERROR(
        'sqlmetrics: column \'weight\': the weights of a slice sum to more than 1e+308 (' || CAST((
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
        ) AS STRING) || '), beyond the float range; rescale them (e.g. divide the column by its largest value): every metric but the weighted counts is unchanged by a common factor'
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
    -ABS(score - label) AS score,
    SUM(w) AS w_pos,
    CAST(0 AS FLOAT64) AS w_neg
  FROM input
  WHERE
    w > 0
  GROUP BY
    slice_1,
    slice_2,
    ABS(score - label)
), error_cum AS (
  WITH error_cum_ranges AS (
    /* score_cum, distributed: the tp and fp of score_cum.sql without a window over a whole */
    /* slice, which an engine that spreads rows over workers runs on one of them (Spark: */
    /* "No Partition Defined for Window operation! Moving all data to a single partition"). */
    /* Each slice's finite scores are cut into N ranges of equal width (N the parameter */
    /* buckets) from its lowest to its highest finite score: buckets 0 to N, the highest */
    /* score alone in N; scores beyond ±1e300, infinities and NaN get a bucket of their own */
    /* at either end, -1 and N + 1. The bucket is a */
    /* function of the score, so a tied score falls in one bucket, and a non-decreasing one */
    /* (each step of the arithmetic rounds monotonically), so a higher bucket holds only */
    /* higher scores. tp is then the positive weight at or above the entry's score within */
    /* its bucket (a window partitioned by slice and bucket: the work spreads over the */
    /* buckets) plus the positive weight of the buckets above (a running sum over the */
    /* per-bucket totals, a few rows per slice, joined back); fp likewise. The same numbers */
    /* as score_cum.sql. Equal widths: a few outlying scores crowd the rest into few */
    /* buckets, which stays exact, only less spread. */
    SELECT
      slice_1,
      slice_2,
      MIN(CASE WHEN ABS(score) < 1e300 THEN score END) AS lo,
      MAX(CASE WHEN ABS(score) < 1e300 THEN score END) AS hi,
      SUM(w_pos) AS pos_total,
      SUM(w_neg) AS neg_total
    FROM error_hist
    GROUP BY
      slice_1,
      slice_2
  ), error_cum_bucketed AS (
    SELECT
      h.slice_1,
      h.slice_2,
      h.score,
      h.w_pos,
      h.w_neg,
      r.pos_total,
      r.neg_total,
      CASE
        WHEN ABS(h.score) < 1e300
        THEN COALESCE(
          CAST(FLOOR((
            h.score - r.lo
          ) / CAST(NULLIF(r.hi - r.lo, 0) AS FLOAT64) * 1024) AS INT64),
          0
        )
        WHEN h.score < 0
        THEN -1
        ELSE 1024 + 1
      END AS bucket
    FROM error_hist AS h
    JOIN error_cum_ranges AS r
      ON h.slice_1 IS NOT DISTINCT FROM r.slice_1
      AND h.slice_2 IS NOT DISTINCT FROM r.slice_2
  ), error_cum_above AS (
    SELECT
      slice_1,
      slice_2,
      bucket,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY bucket DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ) AS pos_above,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY bucket DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ) AS neg_above
    FROM (
      SELECT
        slice_1,
        slice_2,
        bucket,
        SUM(w_pos) AS w_pos,
        SUM(w_neg) AS w_neg
      FROM error_cum_bucketed AS bucketed
      GROUP BY
        slice_1,
        slice_2,
        bucket
    ) AS totals
  )
  SELECT
    e.slice_1,
    e.slice_2,
    e.score,
    e.w_pos,
    e.w_neg,
    e.tp_within + COALESCE(a.pos_above, 0) AS tp,
    e.fp_within + COALESCE(a.neg_above, 0) AS fp,
    e.tie_pos,
    e.tie_neg,
    e.tp_within + COALESCE(a.pos_above, 0) + e.fp_within + COALESCE(a.neg_above, 0) - e.tie_pos - e.tie_neg + 1 AS rank_from,
    e.tp_within + COALESCE(a.pos_above, 0) + e.fp_within + COALESCE(a.neg_above, 0) AS rank_to,
    e.pos_total,
    e.neg_total
  FROM (
    SELECT
      slice_1,
      slice_2,
      bucket,
      score,
      w_pos,
      w_neg,
      pos_total,
      neg_total,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2, bucket
        ORDER BY score DESC
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS tp_within,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2, bucket
        ORDER BY score DESC
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS fp_within,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2, bucket
        ORDER BY score DESC
        RANGE BETWEEN CURRENT ROW AND CURRENT ROW
      ) AS tie_pos,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2, bucket
        ORDER BY score DESC
        RANGE BETWEEN CURRENT ROW AND CURRENT ROW
      ) AS tie_neg
    FROM error_cum_bucketed AS bucketed
  ) AS e
  JOIN error_cum_above AS a
    ON e.slice_1 IS NOT DISTINCT FROM a.slice_1
    AND e.slice_2 IS NOT DISTINCT FROM a.slice_2
    AND e.bucket = a.bucket
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
  row_counts.slice_1 ASC NULLS LAST,
  row_counts.slice_2 ASC NULLS LAST
