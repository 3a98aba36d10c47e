m_average_precision AS (
  WITH m_average_precision_per_class AS (
    /* multiclass_average_precision: one-vs-rest average precision averaged over the */
    /* classes, scikit-learn's average_precision_score(label_binarize(y), scores, */
    /* average=...) (the mean average precision, mAP). For each class c, AP_c is the binary */
    /* step sum (classification/average_precision.sql) of "true class is c" against c's score: */
    /*   AP_c = Σ_t w⁺_c(t) · TP_t / (TP_t + FP_t) / W⁺_c over c's distinct scores t, highest first, */
    /* NULL when the slice has no positive or no negative weight for c (a degenerate class; */
    /* scikit-learn gives it 0 without positives, 1 without negatives). Degenerate classes */
    /* are left out of the average and counted in average_precision_skipped; */
    /* average_precision_classes counts the classes averaged: */
    /*   macro     the mean of AP_c over the classes with one */
    /*   weighted  Σ W⁺_c·AP_c / Σ W⁺_c over them (W⁺_c, the class's true weight: prevalence) */
    /* NULL when no class has an average precision. */
    SELECT
      slice_1,
      slice_2,
      class,
      SUM(w_pos) AS support,
      CASE
        WHEN SUM(w_neg) > 0
        THEN SUM(w_pos * (
          tp / CAST(NULLIF(tp + fp, 0) AS DOUBLE)
        )) / CAST(NULLIF(SUM(w_pos), 0) AS DOUBLE)
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
    AVG(value) AS average_precision,
    COUNT(value) AS average_precision_classes,
    COUNT(*) - COUNT(value) AS average_precision_skipped
  FROM m_average_precision_per_class AS per_class
  GROUP BY
    slice_1,
    slice_2
)
