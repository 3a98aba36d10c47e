m_sndr AS (
  /* sndr: the self-normalized doubly robust estimator: dr with the residual term divided by the mean importance weight */
  /*   SNDR = Σ k·q̂ₑ / Σ k + Σ k·w·(r − q̂ₐ) / Σ k·w,   w = πₑ/π₀ */
  /* NULL on a slice with no used row, or where Σ k·w = 0. */
  /* As obp 0.5.7's obp.ope.SelfNormalizedDoublyRobust; sqlmetrics/metrics/off_policy/sndr.py. */
  SELECT
    model_sums.slice_1,
    model_sums.slice_2,
    model_sums.ope_model_reward / CAST(NULLIF(model_sums.w, 0) AS DOUBLE) + residual_sums.ope_residual / CAST(NULLIF(importance_sums.ope_weight, 0) AS DOUBLE) AS sndr
  FROM model_sums
  JOIN residual_sums
    ON model_sums.slice_1 IS NOT DISTINCT FROM residual_sums.slice_1
    AND model_sums.slice_2 IS NOT DISTINCT FROM residual_sums.slice_2
  JOIN importance_sums
    ON model_sums.slice_1 IS NOT DISTINCT FROM importance_sums.slice_1
    AND model_sums.slice_2 IS NOT DISTINCT FROM importance_sums.slice_2
)
