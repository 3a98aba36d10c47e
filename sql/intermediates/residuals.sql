-- residuals: per slice, the weighted sums of the residuals e = score − label (the
-- prediction minus the target) that the regression metrics read. The row-level sums
-- are aggregates of base (the one aggregation over the source), which the regression
-- family adds to it (sqlmetrics/metrics/regression/__init__.py):
--   w_label              Σ w·y                    (the target's weighted mean is w_label / w)
--   abs_error            Σ w·|e|
--   squared_error        Σ w·e²
--   error                Σ w·e
--   abs_percentage_error Σ w·|e / y|   over rows with y ≠ 0
--   w_nonzero_label      Σ w           over rows with y ≠ 0
--   n_zero_label         rows with y = 0 (left out of mape)
--   max_abs_error        max |e|       over rows of weight > 0
--   min_label, max_label the smallest and largest y over rows of weight > 0
--
-- reads:  base({{ by }}, n, w, w_label, abs_error, squared_error, error,
--              abs_percentage_error, w_nonzero_label, n_zero_label, max_abs_error,
--              min_label, max_label)
-- output: {{ by }}, w, w_label, abs_error, squared_error, error, abs_percentage_error,
--         w_nonzero_label, n_zero_label, max_abs_error, min_label, max_label
SELECT {{ by }}, SUM(w) AS w, SUM(w_label) AS w_label, SUM(abs_error) AS abs_error,
       SUM(squared_error) AS squared_error, SUM(error) AS error,
       SUM(abs_percentage_error) AS abs_percentage_error,
       SUM(w_nonzero_label) AS w_nonzero_label, SUM(n_zero_label) AS n_zero_label,
       MAX(max_abs_error) AS max_abs_error, MIN(min_label) AS min_label, MAX(max_label) AS max_label
FROM base
WHERE n > 0
GROUP BY {{ by }}
