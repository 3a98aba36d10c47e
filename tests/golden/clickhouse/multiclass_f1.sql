m_f1 AS (
  WITH m_f1_scores AS (
    /* multiclass_f1: F1_c = 2·tp_c / (support_c + predicted_c) = 2·TP / (2·TP + FP + FN) */
    /* for every class c of the slice, averaged as scikit-learn's */
    /* f1_score(average=..., zero_division=np.nan) (multiclass_fbeta with β = 1): */
    /*   macro     the mean over the classes with an F1 (left out only when a class has */
    /*             neither support nor predictions: all its rows weigh 0) */
    /*   weighted  their mean weighted by support_c; when every one of them has support 0, */
    /*             their plain mean (scikit-learn's fallback) */
    /*   micro     2·Σ tp / (Σ support + Σ predicted) (= accuracy) */
    /* NULL on an empty slice. */
    SELECT
      slice_1,
      slice_2,
      tp,
      support,
      predicted,
      2 * tp / CAST(nullIf(support + predicted, 0) AS Nullable(Float64)) AS f
    FROM class_counts
  )
  SELECT
    slice_1,
    slice_2,
    AVG(f) AS f1
  FROM m_f1_scores AS scores
  GROUP BY
    slice_1,
    slice_2
)
