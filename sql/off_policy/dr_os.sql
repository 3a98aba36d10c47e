-- dr_os: doubly robust with optimistic shrinkage: dr with each importance weight w replaced by λw / (w² + λ)
--   DRos = Σ k·[q̂ₑ + ŵ·(r − q̂ₐ)] / Σ k,   ŵ = λw / (w² + λ), w = πₑ/π₀, λ the shrinkage
-- (λ → ∞ gives dr, λ → 0 dm). NULL on a slice with no used row.
-- (sqlmetrics/metrics/off_policy/dr_os.py; obp 0.5.7's obp.ope.DoublyRobustWithShrinkage(lambda_=shrinkage))
--
-- reads:  model_sums, shrunk_sums
-- params: {{ shrinkage }} -- DOUBLE > 0
-- output: {{ by }}, dr_os
SELECT {{ by(m) }}, (m.ope_model_reward + s.ope_shrunk) / CAST(NULLIF(m.w, 0) AS DOUBLE) AS dr_os
FROM model_sums AS m
JOIN shrunk_sums AS s ON {{ same_slice(m, s) }}
WHERE s.shrinkage = {{ shrinkage }}
