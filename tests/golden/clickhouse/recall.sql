m_recall AS (
  /* recall = TP / (TP + FN): the weighted share of positives predicted positive */
  /* (score >= threshold). NULL when the slice has no positive. */
  SELECT
    slice_1,
    slice_2,
    tp / CAST(nullIf(tp + fn, 0) AS Nullable(Float64)) AS recall
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
