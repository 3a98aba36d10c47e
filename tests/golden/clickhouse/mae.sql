m_mae AS (
  /* mae: the mean absolute error */
  /*   MAE = Σ w·|ŷ − y| / Σ w */
  /* NULL on an empty slice (or one whose weights are all 0). */
  SELECT
    slice_1,
    slice_2,
    abs_error / CAST(nullIf(w, 0) AS Nullable(Float64)) AS mae
  FROM residuals
)
