-- mean_error: the bias, the mean signed error (prediction minus target)
--   ME = Σ w·(ŷ − y) / Σ w
-- > 0: the model over-predicts on average. NULL on an empty slice (or one whose weights
-- are all 0).
--
-- reads:  residuals({{ by }}, w, error)
-- output: {{ by }}, mean_error
SELECT {{ by }}, error / CAST(NULLIF(w, 0) AS DOUBLE) AS mean_error
FROM residuals
