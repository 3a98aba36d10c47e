m_precision AS (
  /* multiclass_precision: precision_c = tp_c / predicted_c for every class c of the slice, */
  /* averaged as scikit-learn's precision_score(average=..., zero_division=np.nan): */
  /*   macro     the mean over the classes that were predicted (a class never predicted */
  /*             has no precision and is left out) */
  /*   weighted  their mean weighted by support_c; when every one of them has support 0, */
  /*             their plain mean (scikit-learn's fallback) */
  /*   micro     Σ tp / Σ predicted (= accuracy) */
  /* NULL when no class was predicted (an empty slice). */
  SELECT
    slice_1,
    slice_2,
    AVG(tp / CAST(NULLIF(predicted, 0) AS DOUBLE)) AS precision
  FROM class_counts
  GROUP BY
    slice_1,
    slice_2
)
