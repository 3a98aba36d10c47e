m_calibration AS (
  /* calibration = Σ w·p / Σ w·y: predicted over observed positives; 1 is calibrated on */
  /* average, above 1 over-predicts. NULL when the slice has no positive. */
  SELECT
    slice_1,
    slice_2,
    SUM((
      w_pos + w_neg
    ) * score) / CAST(nullIf(SUM(w_pos), 0) AS Nullable(Float64)) AS calibration
  FROM score_hist
  GROUP BY
    slice_1,
    slice_2
)
