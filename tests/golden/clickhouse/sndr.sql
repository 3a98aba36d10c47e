m_sndr AS (
  /* sndr: the self-normalized doubly robust estimator: dr with the residual term divided by the mean importance weight */
  /*   SNDR = Σ k·q̂ₑ / Σ k + Σ k·w·(r − q̂ₐ) / Σ k·w,   w = πₑ/π₀ */
  /* NULL on a slice with no used row, or where Σ k·w = 0. */
  /* (sqlmetrics/metrics/off_policy/sndr.py; obp 0.5.7's obp.ope.SelfNormalizedDoublyRobust) */
  SELECT
    m.slice_1 AS slice_1,
    m.slice_2 AS slice_2,
    m.ope_model_reward / CAST(nullIf(m.w, 0) AS Nullable(Float64)) + r.ope_residual / CAST(nullIf(i.ope_weight, 0) AS Nullable(Float64)) AS sndr
  FROM model_sums AS m
  JOIN residual_sums AS r
    ON m.slice_1 IS NOT DISTINCT FROM r.slice_1
    AND m.slice_2 IS NOT DISTINCT FROM r.slice_2
  JOIN importance_sums AS i
    ON m.slice_1 IS NOT DISTINCT FROM i.slice_1
    AND m.slice_2 IS NOT DISTINCT FROM i.slice_2
)
