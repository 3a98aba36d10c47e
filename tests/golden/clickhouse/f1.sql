m_f1 AS (
  /* f1 = 2·TP / (2·TP + FP + FN), the harmonic mean of precision and recall, written so */
  /* that it stays defined (0) when only one of them is. NULL when TP + FP + FN = 0. */
  SELECT
    slice_1,
    slice_2,
    2 * tp / CAST(nullIf(2 * tp + fp + fn, 0) AS Nullable(Float64)) AS f1
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
