m_dr_os AS (
  /* dr_os: doubly robust with optimistic shrinkage: dr with each importance weight w replaced by λw / (w² + λ) */
  /*   DRos = Σ k·[q̂ₑ + ŵ·(r − q̂ₐ)] / Σ k,   ŵ = λw / (w² + λ), w = πₑ/π₀, λ the shrinkage */
  /* (λ → ∞ gives dr, λ → 0 dm). NULL on a slice with no used row. */
  /* As obp 0.5.7's obp.ope.DoublyRobustWithShrinkage(lambda_=shrinkage); sqlmetrics/metrics/off_policy/dr_os.py. */
  SELECT
    model_sums.slice_1,
    model_sums.slice_2,
    (
      model_sums.ope_model_reward + shrunk_sums.ope_shrunk
    ) / CAST(NULLIF(model_sums.w, 0) AS DOUBLE) AS dr_os
  FROM model_sums
  JOIN shrunk_sums
    ON model_sums.slice_1 IS NOT DISTINCT FROM shrunk_sums.slice_1
    AND model_sums.slice_2 IS NOT DISTINCT FROM shrunk_sums.slice_2
  WHERE
    shrunk_sums.shrinkage = CAST(100.0 AS DOUBLE)
)
