-- mean_weight: the mean importance weight w = πₑ/π₀: 1 in expectation, so one far from 1 says the propensities are wrong
--   mean w = Σ k·w / Σ k,   w = πₑ/π₀: its expectation under the logging policy is 1
-- (less only where πₑ puts mass on actions π₀ never takes). NULL on an empty slice.
-- As the mean of obp 0.5.7's importance weights iw = action_dist[a] / pscore; sqlmetrics/metrics/off_policy/mean_weight.py.
--
-- reads:  importance_sums
-- output: {{ by }}, mean_weight
SELECT {{ by }}, ope_weight / CAST(NULLIF(w, 0) AS DOUBLE) AS mean_weight
FROM importance_sums
