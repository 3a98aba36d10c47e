m_rmse AS (
  /* rmse: the root mean squared error */
  /*   RMSE = √(Σ w·(ŷ − y)² / Σ w) */
  /* NULL on an empty slice (or one whose weights are all 0). */
  SELECT
    slice_1,
    slice_2,
    SQRT(squared_error / CAST(nullIf(w, 0) AS Nullable(Float64))) AS rmse
  FROM residuals
)
