-- error_hist: each slice's absolute errors |ŷ − y| as a score histogram, for the median
-- of the errors (median_absolute_error): per distinct error, of the rows of weight > 0,
-- the weight w_pos (w_neg is 0) with the error negated as its score, so that the running
-- sums of score_cum (the weight at or above a score) walk the errors upwards: tp at
-- score −e is W(≤ e), the weight of the errors up to e.
--
-- reads:  input({{ by }}, score, label, w)
-- output: {{ by }}, score, w_pos, w_neg
SELECT {{ by }}, -ABS(score - label) AS score, SUM(w) AS w_pos, CAST(0 AS DOUBLE) AS w_neg
FROM input
WHERE w > 0
GROUP BY {{ by }}, ABS(score - label)
