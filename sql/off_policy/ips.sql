-- ips: inverse propensity scoring: the reward the target policy would earn, each logged row weighted by w = πₑ/π₀
--   IPS = Σ k·w·r / Σ k,   w = πₑ/π₀ (k the row weight, r the reward)
-- NULL on a slice with no used row (or all of weight 0).
-- As obp 0.5.7's obp.ope.InverseProbabilityWeighting; sqlmetrics/metrics/off_policy/ips.py.
--
-- reads:  importance_sums
-- output: {{ by }}, ips
SELECT {{ by }}, ope_reward / CAST(NULLIF(w, 0) AS DOUBLE) AS ips
FROM importance_sums
