m_dr_os AS (
  /* dr_os: doubly robust with optimistic shrinkage: dr with each importance weight w replaced by λw / (w² + λ) */
  /*   DRos = Σ k·[q̂ₑ + ŵ·(r − q̂ₐ)] / Σ k,   ŵ = λw / (w² + λ), w = πₑ/π₀, λ the shrinkage */
  /* (λ → ∞ gives dr, λ → 0 dm). NULL on a slice with no used row. */
  /* (sqlmetrics/metrics/off_policy/dr_os.py; obp 0.5.7's obp.ope.DoublyRobustWithShrinkage(lambda_=shrinkage)) */
  SELECT
    m.slice_1,
    m.slice_2,
    (
      m.ope_model_reward + s.ope_shrunk
    ) / CAST(NULLIF(m.w, 0) AS DOUBLE) AS dr_os
  FROM model_sums AS m
  JOIN shrunk_sums AS s
    ON m.slice_1 IS NOT DISTINCT FROM s.slice_1
    AND m.slice_2 IS NOT DISTINCT FROM s.slice_2
  WHERE
    s.shrinkage = CAST(100.0 AS DOUBLE)
)
