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
        tp / CAST(tp + fn AS Nullable(Float64)) + tn / CAST(tn + fp AS Nullable(Float64))
      ) / CAST(2 AS Nullable(Float64))
      WHEN tp + fn > 0
      THEN tp / CAST(tp + fn AS Nullable(Float64))
      WHEN tn + fp > 0
      THEN tn / CAST(tn + fp AS Nullable(Float64))
    END AS balanced_accuracy
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
