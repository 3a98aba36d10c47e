-- mse: the mean squared error
--   MSE = Σ w·(ŷ − y)² / Σ w
-- NULL on an empty slice (or one whose weights are all 0).
--
-- reads:  residuals({{ by }}, w, squared_error)
-- output: {{ by }}, mse
SELECT {{ by }}, squared_error / CAST(NULLIF(w, 0) AS DOUBLE) AS mse
FROM residuals
