m_ess AS (
  /* ess: the effective sample size of the importance weights: how many rows the weighted estimate is worth */
  /*   ESS = (Σ k·w)² / Σ k·w²,   w = πₑ/π₀   (n when every w is equal; far below n: a few rows carry the estimate) */
  /* taken as Σ k·w · (Σ k·w / Σ k·w²), which no large weight overflows. NULL where Σ k·w² = 0. */
  /* As obp 0.5.7's Kish's effective sample size of the weights w = πₑ/π₀; sqlmetrics/metrics/off_policy/ess.py. */
  SELECT
    slice_1,
    slice_2,
    ope_weight * (
      ope_weight / CAST(NULLIF(ope_weight_squares, 0) AS DOUBLE)
    ) AS ess
  FROM importance_sums
)
