m_specificity AS (
  /* specificity = TN / (TN + FP): the weighted share of negatives predicted negative */
  /* (score < threshold). NULL when the slice has no negative. */
  SELECT
    slice_1,
    slice_2,
    tn / CAST(nullIf(tn + fp, 0) AS Nullable(Float64)) AS specificity
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
