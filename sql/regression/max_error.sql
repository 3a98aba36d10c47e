-- max_error: the largest absolute error
--   max |ŷ − y|   over the rows of weight > 0
-- (a weight only decides whether a row counts). NULL on an empty slice.
--
-- reads:  residuals({{ by }}, max_abs_error)
-- output: {{ by }}, max_error
SELECT {{ by }}, max_abs_error AS max_error
FROM residuals
