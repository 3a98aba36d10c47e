-- dr: the doubly robust estimator: the direct method plus the importance-weighted residual of the reward model
--   DR = Σ k·[q̂ₑ + w·(r − q̂ₐ)] / Σ k,   w = πₑ/π₀, q̂ₐ the reward model at the logged action
-- NULL on a slice with no used row.
-- As obp 0.5.7's obp.ope.DoublyRobust; sqlmetrics/metrics/off_policy/dr.py.
--
-- reads:  model_sums, residual_sums
-- output: {{ by }}, dr
SELECT {{ by(model_sums) }}, (model_sums.ope_model_reward + residual_sums.ope_residual)
       / CAST(NULLIF(model_sums.w, 0) AS DOUBLE) AS dr
FROM model_sums
JOIN residual_sums ON {{ same_slice(model_sums, residual_sums) }}
