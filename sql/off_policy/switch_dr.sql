-- switch_dr: switch doubly robust, obp's form: dr whose residual term keeps only the rows of importance weight at most the cap λ
--   switch-DR = Σ k·[q̂ₑ + 1{w ≤ λ}·w·(r − q̂ₐ)] / Σ k,   w = πₑ/π₀, λ the cap
-- (obp's form: a row of w > λ keeps its q̂ₑ and drops its residual; Wang et al. 2017's
-- switch uses the model alone for the actions of w > λ). NULL on a slice with no used row.
-- As obp 0.5.7's obp.ope.SwitchDoublyRobust(lambda_=cap); sqlmetrics/metrics/off_policy/switch_dr.py.
--
-- reads:  model_sums, switch_sums
-- params: {{ cap }} -- DOUBLE > 0
-- output: {{ by }}, switch_dr
SELECT {{ by(model_sums) }}, (model_sums.ope_model_reward + switch_sums.ope_switch)
       / CAST(NULLIF(model_sums.w, 0) AS DOUBLE) AS switch_dr
FROM model_sums
JOIN switch_sums ON {{ same_slice(model_sums, switch_sums) }}
WHERE switch_sums.cap = {{ cap }}
