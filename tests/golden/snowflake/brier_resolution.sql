m_brier_resolution AS (
  /* brier_resolution: the Brier score's resolution (discrimination) in Murphy's binned */
  /* decomposition: Σ_b W_b·(ō_b − ō)² / W, with ō_b = Σ w·y / Σ w the bin's observed */
  /* positive rate, ō the slice's, W_b the bin's weight and W the slice's; higher is better, */
  /* at most brier_uncertainty = ō·(1 − ō). The bins are sm.calibration_curve's */
  /* (calibration_bins). NULL when the slice's weight is 0. */
  SELECT
    slice_1,
    slice_2,
    SUM(CASE WHEN w > 0 THEN w * (
      o - base_rate
    ) * (
      o - base_rate
    ) ELSE 0 END) / CAST(NULLIF(SUM(w), 0) AS DOUBLE) AS brier_resolution
  FROM (
    /* each bin with its slice's positive rate (a join: no window over a slice) */
    SELECT
      b.slice_1,
      b.slice_2,
      b.w,
      b.w_pos / CAST(NULLIF(b.w, 0) AS DOUBLE) AS o,
      r.base_rate
    FROM calibration_bins AS b
    JOIN (
      SELECT
        slice_1,
        slice_2,
        SUM(w_pos) / CAST(NULLIF(SUM(w), 0) AS DOUBLE) AS base_rate
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
