m_dr AS (
  /* dr: the doubly robust estimator: the direct method plus the importance-weighted residual of the reward model */
  /*   DR = Σ k·[q̂ₑ + w·(r − q̂ₐ)] / Σ k,   w = πₑ/π₀, q̂ₐ the reward model at the logged action */
  /* NULL on a slice with no used row. */
  /* (sqlmetrics/metrics/off_policy/dr.py; obp 0.5.7's obp.ope.DoublyRobust) */
  SELECT
    m.slice_1,
    m.slice_2,
    (
      m.ope_model_reward + r.ope_residual
    ) / CAST(NULLIF(m.w, 0) AS DOUBLE) AS dr
  FROM model_sums AS m
  JOIN residual_sums AS r
    ON m.slice_1 IS NOT DISTINCT FROM r.slice_1
    AND m.slice_2 IS NOT DISTINCT FROM r.slice_2
)
