m_ess AS (
  /* ess: the effective sample size of the importance weights: how many rows the weighted estimate is worth */
  /*   ESS = (Σ k·w)² / Σ k·w²,   w = πₑ/π₀   (n when every w is equal; far below n: a few rows carry the estimate) */
  /* taken as Σ k·w · (Σ k·w / Σ k·w²), whose product does not overflow; where Σ k·w² itself */
  /* overflowed (weights above ~1e154) it is that infinity, which the family's check of the */
  /* result refuses (metrics/off_policy/overflow.py). NULL where Σ k·w² = 0. */
  /* Kish's effective sample size; sqlmetrics/metrics/off_policy/ess.py. */
  SELECT
    slice_1,
    slice_2,
    CASE
      WHEN ABS(ope_weight_squares) = CAST('inf' AS DOUBLE)
      THEN ope_weight_squares
      ELSE ope_weight * (
        ope_weight / CAST(NULLIF(ope_weight_squares, 0) AS DOUBLE)
      )
    END AS ess
  FROM importance_sums
)
