-- rmse: the root mean squared error
--   RMSE = √(Σ w·(ŷ − y)² / Σ w)
-- NULL on an empty slice (or one whose weights are all 0).
--
-- reads:  residuals({{ by }}, w, squared_error)
-- output: {{ by }}, rmse
SELECT {{ by }}, SQRT(squared_error / CAST(NULLIF(w, 0) AS DOUBLE)) AS rmse
FROM residuals
