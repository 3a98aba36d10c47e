-- max_weight: the largest importance weight w = πₑ/π₀ over the used rows
--   max w = πₑ/π₀ over the used rows of weight k > 0 (a weight only decides whether a row counts).
-- NULL on a slice with no such row.
-- As the largest of obp 0.5.7's importance weights iw = action_dist[a] / pscore; sqlmetrics/metrics/off_policy/max_weight.py.
--
-- reads:  importance_sums
-- output: {{ by }}, max_weight
SELECT {{ by }}, ope_max_weight AS max_weight
FROM importance_sums
