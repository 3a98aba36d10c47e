m_mcc AS (
  /* mcc = (TP·TN − FP·FN) / sqrt((TP + FP)·(TP + FN)·(TN + FP)·(TN + FN)), the Matthews */
  /* correlation coefficient. NULL when any factor is 0 (constant prediction or label). */
  /* Each count is divided by their total first (the value is the same), so that no */
  /* product of weights overflows or underflows. */
  SELECT
    slice_1,
    slice_2,
    (
      tp * tn - fp * fn
    ) / CAST(nullIf(SQRT((
      tp + fp
    ) * (
      tp + fn
    ) * (
      tn + fp
    ) * (
      tn + fn
    )), 0) AS Nullable(Float64)) AS mcc
  FROM (
    SELECT
      slice_1,
      slice_2,
      tp / CAST(nullIf(total, 0) AS Nullable(Float64)) AS tp,
      fp / CAST(nullIf(total, 0) AS Nullable(Float64)) AS fp,
      tn / CAST(nullIf(total, 0) AS Nullable(Float64)) AS tn,
      fn / CAST(nullIf(total, 0) AS Nullable(Float64)) AS fn
    FROM (
      SELECT
        slice_1,
        slice_2,
        tp,
        fp,
        tn,
        fn,
        tp + fp + tn + fn AS total
      FROM confusion
      WHERE
        threshold = CAST(0.5 AS Nullable(Float64))
    ) AS counts
  ) AS shares
)
