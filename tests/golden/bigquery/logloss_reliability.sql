m_logloss_reliability AS (
  /* logloss_reliability: logloss's reliability (miscalibration) in the binned decomposition */
  /* of the log score: Σ_b W_b·KL(ō_b ‖ f̄_b) / W, the divergence in nats of each bin's mean */
  /* score f̄_b = Σ w·p / Σ w (clipped to [ε, 1 − ε] as logloss clips a score, ε = 2⁻⁵²) from */
  /* its observed positive rate ō_b = Σ w·y / Σ w, KL(o ‖ f) = o·ln(o/f) + (1 − o)·ln((1 − o)/(1 − f)) */
  /* with 0·ln 0 = 0. With logloss_resolution and logloss_uncertainty: reliability − */
  /* resolution + uncertainty is the binned logloss −Σ w·(y·ln f̄_b + (1 − y)·ln(1 − f̄_b)) / W. */
  /* The bins are sm.calibration_curve's (calibration_bins). NULL when the slice's weight is 0. */
  SELECT
    slice_1,
    slice_2,
    SUM(
      CASE
        WHEN w > 0
        THEN w * (
          CASE WHEN o > 0 THEN o * LN(o / CAST(f AS FLOAT64)) ELSE 0 END + CASE
            WHEN o < 1
            THEN (
              1 - o
            ) * LN((
              1 - o
            ) / CAST(1 - f AS FLOAT64))
            ELSE 0
          END
        )
        ELSE 0
      END
    ) / CAST(NULLIF(SUM(w), 0) AS FLOAT64) AS logloss_reliability
  FROM (
    SELECT
      slice_1,
      slice_2,
      w,
      w_pos / CAST(NULLIF(w, 0) AS FLOAT64) AS o,
      LEAST(
        GREATEST(w_score / CAST(NULLIF(w, 0) AS FLOAT64), 2.220446049250313e-16),
        1 - 2.220446049250313e-16
      ) AS f
    FROM calibration_bins
    WHERE
      bins = 15 AND strategy = 'uniform'
  ) AS bin_means
  GROUP BY
    slice_1,
    slice_2
)
