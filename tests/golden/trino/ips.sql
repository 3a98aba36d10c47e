m_ips AS (
  /* ips: inverse propensity scoring: the reward the target policy would earn, each logged row weighted by w = πₑ/π₀ */
  /*   IPS = Σ k·w·r / Σ k,   w = πₑ/π₀ (k the row weight, r the reward) */
  /* NULL on a slice with no used row (or all of weight 0). */
  /* As obp 0.5.7's obp.ope.InverseProbabilityWeighting; sqlmetrics/metrics/off_policy/ips.py. */
  SELECT
    slice_1,
    slice_2,
    ope_reward / CAST(NULLIF(w, 0) AS DOUBLE) AS ips
  FROM importance_sums
)
