m_balanced_accuracy AS (
  /* balanced_accuracy = (TP / (TP + FN) + TN / (TN + FP)) / 2: the mean of the recall of */
  /* the positives and of the negatives (predicted positive: score >= threshold), so each */
  /* class counts equally whatever its share of the rows. As scikit-learn's */
  /* balanced_accuracy_score, a class absent from the slice's labels (no weight) is left */
  /* out of the mean: a slice of positives only scores their recall. NULL on an empty slice. */
  SELECT
    slice_1,
    slice_2,
    CASE
      WHEN tp + fn > 0 AND tn + fp > 0
      THEN (
        tp / CAST(tp + fn AS DOUBLE) + tn / CAST(tn + fp AS DOUBLE)
      ) / CAST(2 AS DOUBLE)
      WHEN tp + fn > 0
      THEN tp / CAST(tp + fn AS DOUBLE)
      WHEN tn + fp > 0
      THEN tn / CAST(tn + fp AS DOUBLE)
    END AS balanced_accuracy
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS DOUBLE)
)
