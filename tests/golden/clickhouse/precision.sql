m_precision AS (
  /* precision = TP / (TP + FP): the weighted share of predicted positives */
  /* (score >= threshold) that are positive. NULL when nothing is predicted positive. */
  SELECT
    slice_1,
    slice_2,
    tp / CAST(nullIf(tp + fp, 0) AS Nullable(Float64)) AS precision
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
