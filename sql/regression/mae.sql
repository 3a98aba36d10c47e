-- mae: the mean absolute error
--   MAE = Σ w·|ŷ − y| / Σ w
-- NULL on an empty slice (or one whose weights are all 0).
--
-- reads:  residuals({{ by }}, w, abs_error)
-- output: {{ by }}, mae
SELECT {{ by }}, abs_error / CAST(NULLIF(w, 0) AS DOUBLE) AS mae
FROM residuals
