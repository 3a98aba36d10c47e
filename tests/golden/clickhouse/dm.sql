m_dm AS (
  /* dm: the direct method: the reward model's value of the target policy, averaged over the logged rows */
  /*   DM = Σ k·q̂ₑ / Σ k,   q̂ₑ = Σₐ πₑ(a|x)·q̂(x, a) (the role target_reward_model) */
  /* NULL on a slice with no used row. */
  /* As obp 0.5.7's obp.ope.DirectMethod; sqlmetrics/metrics/off_policy/dm.py. */
  SELECT
    slice_1,
    slice_2,
    ope_model_reward / CAST(nullIf(w, 0) AS Nullable(Float64)) AS dm
  FROM model_sums
)
