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
    ) ELSE 0 END) / CAST(nullIf(SUM(w), 0) AS Nullable(Float64)) AS brier_resolution
  FROM (
    SELECT
      slice_1,
      slice_2,
      w,
      w_pos / CAST(nullIf(w, 0) AS Nullable(Float64)) AS o,
      SUM(w_pos) OVER (PARTITION BY slice_1, slice_2) / CAST(nullIf(SUM(w) OVER (PARTITION BY slice_1, slice_2), 0) AS Nullable(Float64)) AS base_rate
    FROM calibration_bins
    WHERE
      bins = 15 AND strategy = 'uniform'
  ) AS bin_rates
  GROUP BY
    slice_1,
    slice_2
)
