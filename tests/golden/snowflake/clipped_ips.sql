m_clipped_ips AS (
  /* clipped_ips: ips with each importance weight clipped at the cap λ: less variance, some bias */
  /*   clipped IPS = Σ k·min(w, λ)·r / Σ k,   w = πₑ/π₀, λ the cap */
  /* NULL on a slice with no used row. */
  /* As obp 0.5.7's obp.ope.InverseProbabilityWeighting(lambda_=cap); sqlmetrics/metrics/off_policy/clipped_ips.py. */
  SELECT
    slice_1,
    slice_2,
    ope_clipped / CAST(NULLIF(w, 0) AS DOUBLE) AS clipped_ips
  FROM clipped_sums
  WHERE
    cap = CAST(10.0 AS DOUBLE)
)
