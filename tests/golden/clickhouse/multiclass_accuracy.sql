m_accuracy AS (
  /* multiclass_accuracy = Σ w·[ŷ = y] / Σ w = Σ_c tp_c / Σ_c support_c, the share of rows */
  /* whose predicted class is the true class. NULL on an empty slice (or all weights 0). */
  SELECT
    slice_1,
    slice_2,
    SUM(tp) / CAST(nullIf(SUM(support), 0) AS Nullable(Float64)) AS accuracy
  FROM class_counts
  GROUP BY
    slice_1,
    slice_2
)
