m_mse AS (
  /* mse: the mean squared error */
  /*   MSE = Σ w·(ŷ − y)² / Σ w */
  /* NULL on an empty slice (or one whose weights are all 0). */
  SELECT
    slice_1,
    slice_2,
    squared_error / CAST(nullIf(w, 0) AS Nullable(Float64)) AS mse
  FROM residuals
)
