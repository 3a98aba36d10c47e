m_fbeta AS (
  /* fbeta = (1 + β²)·TP / ((1 + β²)·TP + β²·FN + FP): recall weighted β times as much as */
  /* precision. NULL when TP + FP + FN = 0. */
  SELECT
    slice_1,
    slice_2,
    (
      1 + CAST(1.0 AS DOUBLE) * CAST(1.0 AS DOUBLE)
    ) * tp / CAST(NULLIF(
      (
        1 + CAST(1.0 AS DOUBLE) * CAST(1.0 AS DOUBLE)
      ) * tp + CAST(1.0 AS DOUBLE) * CAST(1.0 AS DOUBLE) * fn + fp,
      0
    ) AS DOUBLE) AS fbeta
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS DOUBLE)
)
