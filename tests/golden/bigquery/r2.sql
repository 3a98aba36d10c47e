m_r2 AS (
  WITH m_r2_means AS (
    /* r2: the coefficient of determination */
    /*   R² = 1 − Σ w·(y − ŷ)² / Σ w·(y − ȳ)²,   ȳ = Σ w·y / Σ w */
    /* The spread of the target is summed in a second pass over the rows, around the mean */
    /* of the first (stable where Σ w·y² − (Σ w·y)² / Σ w would cancel). NULL when the */
    /* targets of positive weight are all equal (scikit-learn returns 1.0 or 0.0 there, nan */
    /* or −inf with force_finite=False) and on an empty slice. */
    SELECT
      slice_1,
      slice_2,
      squared_error,
      w_label / w AS label_mean
    FROM residuals
    WHERE
      w > 0
  )
  SELECT
    m.slice_1,
    m.slice_2,
    CASE
      WHEN MIN(i.label) < MAX(i.label)
      THEN 1 - MIN(m.squared_error) / SUM(i.w * (
        i.label - m.label_mean
      ) * (
        i.label - m.label_mean
      ))
    END AS r2
  FROM m_r2_means AS m
  JOIN input AS i
    ON i.slice_1 IS NOT DISTINCT FROM m.slice_1
    AND i.slice_2 IS NOT DISTINCT FROM m.slice_2
  WHERE
    i.w > 0
  GROUP BY
    m.slice_1,
    m.slice_2
)
