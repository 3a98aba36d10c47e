m_auc AS (
  WITH m_auc_per_class AS (
    /* multiclass_auc: one-vs-rest AUC averaged over the classes, scikit-learn's */
    /* roc_auc_score(y, scores, multi_class="ovr", average=...). For each class c, AUC_c is */
    /* the binary AUC (classification/auc.sql) of "true class is c" against c's score: */
    /*   AUC_c = (W⁺·W⁻ + Σ_neg w·tp − Σ_pos w·fp) / (2·W⁺·W⁻), tp and fp taking ties */
    /* (taken as in auc.sql, each weight divided by the class's W⁺ or W⁻ first), */
    /* NULL when the slice has no positive or no negative weight for c (a degenerate class, */
    /* for which scikit-learn raises). Degenerate classes are left out of the average and */
    /* counted in auc_skipped; auc_classes counts the classes averaged: */
    /*   macro     the mean of AUC_c over the classes with one */
    /*   weighted  Σ W⁺_c·AUC_c / Σ W⁺_c over them (W⁺_c, the class's true weight: prevalence) */
    /* NULL when no class has an AUC. */
    SELECT
      slice_1,
      slice_2,
      class,
      SUM(w_pos) AS support,
      CASE
        WHEN SUM(w_pos) > 0 AND SUM(w_neg) > 0
        THEN (
          1 + SUM(
            w_neg / CAST(NULLIF(neg_total, 0) AS DOUBLE) * (
              tp / CAST(NULLIF(pos_total, 0) AS DOUBLE)
            )
          ) - SUM(
            w_pos / CAST(NULLIF(pos_total, 0) AS DOUBLE) * (
              fp / CAST(NULLIF(neg_total, 0) AS DOUBLE)
            )
          )
        ) / CAST(2 AS DOUBLE)
      END AS value
    FROM class_score_cum
    GROUP BY
      slice_1,
      slice_2,
      class
  )
  SELECT
    slice_1,
    slice_2,
    AVG(value) AS auc,
    COUNT(value) AS auc_classes,
    COUNT(*) - COUNT(value) AS auc_skipped
  FROM m_auc_per_class AS per_class
  GROUP BY
    slice_1,
    slice_2
)
