-- dr_os: doubly robust with optimistic shrinkage: dr with each importance weight w replaced by λw / (w² + λ)
--   DRos = Σ k·[q̂ₑ + ŵ·(r − q̂ₐ)] / Σ k,   ŵ = λw / (w² + λ), w = πₑ/π₀, λ the shrinkage
-- (λ → ∞ gives dr, λ → 0 dm). NULL on a slice with no used row.
-- As obp 0.5.7's obp.ope.DoublyRobustWithShrinkage(lambda_=shrinkage); sqlmetrics/metrics/off_policy/dr_os.py.
--
-- reads:  model_sums, shrunk_sums
-- params: {{ shrinkage }} -- DOUBLE > 0
-- output: {{ by }}, dr_os
SELECT {{ by(model_sums) }}, (model_sums.ope_model_reward + shrunk_sums.ope_shrunk)
       / CAST(NULLIF(model_sums.w, 0) AS DOUBLE) AS dr_os
FROM model_sums
JOIN shrunk_sums ON {{ same_slice(model_sums, shrunk_sums) }}
WHERE shrunk_sums.shrinkage = {{ shrinkage }}
