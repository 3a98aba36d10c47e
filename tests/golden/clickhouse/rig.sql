m_rig AS (
  /* rig: relative information gain, 1 − ne: the share of the base rate's entropy that the */
  /* scores explain (0: no better than predicting the base rate; higher is better), with */
  /* ne torchrec's normalized entropy (metrics/ne.py), */
  /*   NE = −Σ w·(y·ln p + (1 − y)·ln(1 − p)) / (−P·ln p̄ − N·ln(1 − p̄)), */
  /* P = Σ w·y, N = Σ w·(1 − y), p̄ = P / (P + N), with torchrec's clamp eta = 1e-12 on p and */
  /* p̄ (see ne.sql). NULL when the slice has only one class (P = 0 or N = 0) or no weight. */
  SELECT
    slice_1,
    slice_2,
    CASE
      WHEN pos > 0 AND neg > 0
      THEN 1 - cross_entropy / CAST(base_entropy AS Nullable(Float64))
    END AS rig
  FROM (
    SELECT
      slice_1,
      slice_2,
      pos,
      neg,
      cross_entropy,
      -pos * LN(
        LEAST(GREATEST(pos / CAST(nullIf(pos + neg, 0) AS Nullable(Float64)), 1e-12), 1 - 1e-12)
      ) - neg * LN(
        LEAST(GREATEST(neg / CAST(nullIf(pos + neg, 0) AS Nullable(Float64)), 1e-12), 1 - 1e-12)
      ) AS base_entropy
    FROM (
      SELECT
        slice_1,
        slice_2,
        CAST(SUM(w_pos) AS Nullable(Float64)) AS pos,
        CAST(SUM(w_neg) AS Nullable(Float64)) AS neg,
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
