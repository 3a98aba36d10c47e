m_recall AS (
  /* multiclass_recall: recall_c = tp_c / support_c for every class c of the slice, */
  /* averaged as scikit-learn's recall_score(average=..., zero_division=np.nan): */
  /*   macro     the mean over the classes that occur as labels (a class that is only */
  /*             predicted has no recall and is left out) */
  /*   weighted  their mean weighted by support_c: Σ tp / Σ support */
  /*   micro     Σ tp / Σ support (= accuracy) */
  /* NULL on an empty slice (or all weights 0). */
  SELECT
    slice_1,
    slice_2,
    AVG(tp / CAST(NULLIF(support, 0) AS DOUBLE)) AS recall
  FROM class_counts
  GROUP BY
    slice_1,
    slice_2
)
