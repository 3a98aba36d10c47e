m_ne AS (
  /* ne: normalized entropy, torchrec's metrics/ne.py: the slice's cross-entropy over the */
  /* entropy of its base rate, */
  /*   NE = −Σ w·(y·ln p + (1 − y)·ln(1 − p)) / (−P·ln p̄ − N·ln(1 − p̄)), */
  /* P = Σ w·y, N = Σ w·(1 − y), p̄ = P / (P + N), with torchrec's clamp eta = 1e-12: p */
  /* (each score) and p̄ held within [eta, 1 − eta] (1 − p̄ taken as N / (P + N), the same */
  /* number without the cancellation). The logarithm's base cancels (torchrec's log₂). */
  /* 1 is no better than predicting the base rate; lower is better. NULL when the slice */
  /* has only one class (P = 0 or N = 0: its base rate has no entropy; torchrec's clamp */
  /* would divide by N·1.4e-12 instead) or no weight. */
  SELECT
    slice_1,
    slice_2,
    CASE WHEN pos > 0 AND neg > 0 THEN cross_entropy / CAST(base_entropy AS DOUBLE) END AS ne
  FROM (
    SELECT
      slice_1,
      slice_2,
      pos,
      neg,
      cross_entropy,
      -pos * LN(LEAST(GREATEST(pos / CAST(NULLIF(pos + neg, 0) AS DOUBLE), 1e-12), 1 - 1e-12)) - neg * LN(LEAST(GREATEST(neg / CAST(NULLIF(pos + neg, 0) AS DOUBLE), 1e-12), 1 - 1e-12)) AS base_entropy
    FROM (
      SELECT
        slice_1,
        slice_2,
        CAST(SUM(w_pos) AS DOUBLE) AS pos,
        CAST(SUM(w_neg) AS DOUBLE) AS neg,
        -SUM(w_pos * LN(p) + w_neg * LN(1 - p)) AS cross_entropy
      FROM (
        SELECT
          slice_1,
          slice_2,
          w_pos,
          w_neg,
          LEAST(GREATEST(score, 1e-12), 1 - 1e-12) AS p
        FROM score_hist
      ) AS clamped
      GROUP BY
        slice_1,
        slice_2
    ) AS sums
  ) AS entropies
)
