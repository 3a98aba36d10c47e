m_ece AS (
  /* ece: the expected calibration error, the gap between each calibration bin's observed */
  /* positive rate ō_b = Σ w·y / Σ w and its mean score f̄_b = Σ w·p / Σ w, averaged over */
  /* the bins by weight (W_b = Σ w of the bin, W of the slice): */
  /*   norm 'l1' (ECE):  Σ_b W_b·|ō_b − f̄_b| / W */
  /*   norm 'l2':        √(Σ_b W_b·(ō_b − f̄_b)² / W) */
  /*   norm 'max' (MCE): max_b |ō_b − f̄_b| over the bins of weight > 0 */
  /* The bins are sm.calibration_curve's (calibration_bins: numpy's edges, a score equal to */
  /* an edge in the lower bin). NULL when the slice's weight is 0. */
  SELECT
    slice_1,
    slice_2,
    SUM(ABS(w_pos - w_score)) / CAST(NULLIF(SUM(w), 0) AS DOUBLE) AS ece
  FROM (
    SELECT
      slice_1,
      slice_2,
      w,
      w_pos,
      w_score,
      w_pos / CAST(NULLIF(w, 0) AS DOUBLE) - w_score / CAST(NULLIF(w, 0) AS DOUBLE) AS gap
    FROM calibration_bins
    WHERE
      bins = 15 AND strategy = 'uniform'
  ) AS gaps
  GROUP BY
    slice_1,
    slice_2
)
