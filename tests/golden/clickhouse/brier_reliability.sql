m_brier_reliability AS (
  /* brier_reliability: the Brier score's reliability (miscalibration) in Murphy's binned */
  /* decomposition: Σ_b W_b·(f̄_b − ō_b)² / W, with f̄_b = Σ w·p / Σ w the bin's mean score, */
  /* ō_b = Σ w·y / Σ w its observed positive rate, W_b its weight and W the slice's. With */
  /* brier_resolution and brier_uncertainty: reliability − resolution + uncertainty is the */
  /* binned Brier score Σ w·(f̄_b − y)² / W (each score replaced by its bin's mean). The bins */
  /* are sm.calibration_curve's (calibration_bins). NULL when the slice's weight is 0. */
  SELECT
    slice_1,
    slice_2,
    SUM(CASE WHEN w > 0 THEN w * (
      f - o
    ) * (
      f - o
    ) ELSE 0 END) / CAST(nullIf(SUM(w), 0) AS Nullable(Float64)) AS brier_reliability
  FROM (
    SELECT
      slice_1,
      slice_2,
      w,
      w_score / CAST(nullIf(w, 0) AS Nullable(Float64)) AS f,
      w_pos / CAST(nullIf(w, 0) AS Nullable(Float64)) AS o
    FROM calibration_bins
    WHERE
      bins = 15 AND strategy = 'uniform'
  ) AS bin_means
  GROUP BY
    slice_1,
    slice_2
)
