m_logloss_resolution AS (
  /* logloss_resolution: logloss's resolution (discrimination) in the binned decomposition of */
  /* the log score: Σ_b W_b·KL(ō_b ‖ ō) / W, the divergence in nats of the slice's positive */
  /* rate ō from each bin's ō_b = Σ w·y / Σ w, KL(o ‖ f) = o·ln(o/f) + (1 − o)·ln((1 − o)/(1 − f)) */
  /* with 0·ln 0 = 0; higher is better, at most logloss_uncertainty. The bins are */
  /* sm.calibration_curve's (calibration_bins). NULL when the slice's weight is 0. */
  SELECT
    slice_1,
    slice_2,
    SUM(
      CASE
        WHEN w > 0
        THEN w * (
          CASE WHEN o > 0 THEN o * LN(o / CAST(base_rate AS FLOAT64)) ELSE 0 END + CASE
            WHEN o < 1
            THEN (
              1 - o
            ) * LN((
              1 - o
            ) / CAST(1 - base_rate AS FLOAT64))
            ELSE 0
          END
        )
        ELSE 0
      END
    ) / CAST(NULLIF(SUM(w), 0) AS FLOAT64) AS logloss_resolution
  FROM (
    /* each bin with its slice's positive rate (a join: no window over a slice) */
    SELECT
      b.slice_1,
      b.slice_2,
      b.w,
      b.w_pos / CAST(NULLIF(b.w, 0) AS FLOAT64) AS o,
      r.base_rate
    FROM calibration_bins AS b
    JOIN (
      SELECT
        slice_1,
        slice_2,
        SUM(w_pos) / CAST(NULLIF(SUM(w), 0) AS FLOAT64) AS base_rate
      FROM calibration_bins
      WHERE
        bins = 15 AND strategy = 'uniform'
      GROUP BY
        slice_1,
        slice_2
    ) AS r
      ON b.slice_1 IS NOT DISTINCT FROM r.slice_1
      AND b.slice_2 IS NOT DISTINCT FROM r.slice_2
    WHERE
      b.bins = 15 AND b.strategy = 'uniform'
  ) AS bin_rates
  GROUP BY
    slice_1,
    slice_2
)
