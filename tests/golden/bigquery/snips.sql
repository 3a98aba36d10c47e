m_snips AS (
  /* snips: self-normalized inverse propensity scoring: ips divided by the mean importance weight */
  /*   SNIPS = Σ k·w·r / Σ k·w,   w = πₑ/π₀ */
  /* NULL where Σ k·w = 0 (the target policy gives every used row probability 0). */
  /* As obp 0.5.7's obp.ope.SelfNormalizedInverseProbabilityWeighting; sqlmetrics/metrics/off_policy/snips.py. */
  SELECT
    slice_1,
    slice_2,
    ope_reward / CAST(NULLIF(ope_weight, 0) AS FLOAT64) AS snips
  FROM importance_sums
)
