m_mcc AS (
  /* mcc = (TP·TN − FP·FN) / sqrt((TP + FP)·(TP + FN)·(TN + FP)·(TN + FN)), the Matthews */
  /* correlation coefficient. NULL when any factor is 0 (constant prediction or label). */
  SELECT
    slice_1,
    slice_2,
    (
      tp * tn - fp * fn
    ) / CAST(NULLIF(SQRT((
      tp + fp
    ) * (
      tp + fn
    ) * (
      tn + fp
    ) * (
      tn + fn
    )), 0) AS FLOAT64) AS mcc
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS FLOAT64)
)
