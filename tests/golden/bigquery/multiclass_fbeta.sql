m_fbeta AS (
  WITH m_fbeta_beta_weights AS (
    /* multiclass_fbeta: F_β,c = (1 + β²)·tp_c / (β²·support_c + predicted_c) */
    /*   = (1 + β²)·TP / ((1 + β²)·TP + β²·FN + FP) for every class c of the slice, averaged */
    /* as scikit-learn's fbeta_score(average=..., zero_division=np.nan). A class's F-score is */
    /* 0 when only its precision or recall is undefined, and undefined (left out of the */
    /* macro and weighted means) only when it has neither support nor predictions. */
    /*   macro     the mean over the classes with an F-score */
    /*   weighted  their mean weighted by support_c; when every one of them has support 0, */
    /*             their plain mean (scikit-learn's fallback) */
    /*   micro     (1 + β²)·Σ tp / (β²·Σ support + Σ predicted) (= accuracy) */
    /* NULL on an empty slice. Taken as tp_c / (r·support_c + q·predicted_c) with */
    /* r = β²/(1 + β²), q = 1/(1 + β²) and β held at most 1e100, as fbeta.sql, so */
    /* that no large β or weight overflows. */
    SELECT
      b * b / CAST((
        1 + b * b
      ) AS FLOAT64) AS r,
      1 / CAST((
        1 + b * b
      ) AS FLOAT64) AS q
    FROM (
      SELECT
        LEAST(CAST(1.0 AS FLOAT64), 1e100) AS b
    ) AS held
  ), m_fbeta_scores AS (
    SELECT
      slice_1,
      slice_2,
      tp,
      support,
      predicted,
      tp / CAST(NULLIF(bw.r * support + bw.q * predicted, 0) AS FLOAT64) AS f
    FROM class_counts
    CROSS JOIN m_fbeta_beta_weights AS bw
  )
  SELECT
    slice_1,
    slice_2,
    AVG(f) AS fbeta
  FROM m_fbeta_scores AS scores
  CROSS JOIN m_fbeta_beta_weights AS bw
  GROUP BY
    slice_1,
    slice_2
)
