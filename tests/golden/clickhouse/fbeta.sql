m_fbeta AS (
  /* fbeta = (1 + β²)·TP / ((1 + β²)·TP + β²·FN + FP): recall weighted β times as much as */
  /* precision. NULL when TP + FP + FN = 0. */
  /* Taken as TP / (TP + r·FN + q·FP) with r = β²/(1 + β²) and q = 1/(1 + β²) (the same */
  /* value), so that no large β or weight overflows: β is held at most 1e100 (beyond, r */
  /* and q differ from their limits 1 and 0 by less than 1e-200); a β whose square */
  /* underflows gives r = 0, q = 1: precision, as scikit-learn with β² = 0. */
  SELECT
    slice_1,
    slice_2,
    tp / CAST(nullIf(tp + f.r * fn + f.q * fp, 0) AS Nullable(Float64)) AS fbeta
  FROM confusion
  CROSS JOIN (
    SELECT
      b * b / CAST((
        1 + b * b
      ) AS Nullable(Float64)) AS r,
      1 / CAST((
        1 + b * b
      ) AS Nullable(Float64)) AS q
    FROM (
      SELECT
        LEAST(CAST(1.0 AS Nullable(Float64)), 1e100) AS b
    ) AS held
  ) AS f
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
