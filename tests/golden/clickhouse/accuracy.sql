m_accuracy AS (
  /* accuracy = (TP + TN) / (TP + FP + TN + FN): the weighted share of rows whose predicted */
  /* class (score >= threshold) equals the label. NULL on an empty slice. */
  SELECT
    slice_1,
    slice_2,
    (
      tp + tn
    ) / CAST(nullIf(tp + fp + tn + fn, 0) AS Nullable(Float64)) AS accuracy
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
