m_mean_error AS (
  /* mean_error: the bias, the mean signed error (prediction minus target) */
  /*   ME = Σ w·(ŷ − y) / Σ w */
  /* > 0: the model over-predicts on average. NULL on an empty slice (or one whose weights */
  /* are all 0). */
  SELECT
    slice_1,
    slice_2,
    error / CAST(nullIf(w, 0) AS Nullable(Float64)) AS mean_error
  FROM residuals
)
