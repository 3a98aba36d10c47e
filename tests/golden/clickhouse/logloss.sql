m_logloss AS (
  /* logloss = −Σ w · (y·ln p + (1 − y)·ln(1 − p)) / Σ w, the mean binary cross-entropy, */
  /* with p = the score clipped to [ε, 1 − ε], ε = 2⁻⁵² (float64 machine epsilon, as */
  /* scikit-learn's log_loss), so a confident mistake costs at most −ln ε ≈ 36.04. */
  /* NULL on an empty slice (or one whose weights are all 0). */
  SELECT
    slice_1,
    slice_2,
    -SUM(w_pos * LN(p) + w_neg * LN(1 - p)) / CAST(nullIf(SUM(w_pos + w_neg), 0) AS Nullable(Float64)) AS logloss
  FROM (
    SELECT
      slice_1,
      slice_2,
      w_pos,
      w_neg,
      LEAST(GREATEST(score, 2.220446049250313e-16), 1 - 2.220446049250313e-16) AS p
    FROM score_hist
  ) AS clipped
  GROUP BY
    slice_1,
    slice_2
)
