m_balanced_accuracy AS (
  /* multiclass_balanced_accuracy: the mean over the slice's classes of recall_c = */
  /* tp_c / support_c, so each class counts equally whatever its share of the rows; as */
  /* scikit-learn's balanced_accuracy_score, a class that is only predicted (support 0) */
  /* has no recall and is left out. Equal to macro-averaged recall. NULL on an empty slice */
  /* (or all weights 0). */
  SELECT
    slice_1,
    slice_2,
    AVG(tp / CAST(nullIf(support, 0) AS Nullable(Float64))) AS balanced_accuracy
  FROM class_counts
  GROUP BY
    slice_1,
    slice_2
)
