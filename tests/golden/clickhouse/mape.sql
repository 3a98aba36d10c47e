m_mape AS (
  /* mape: the mean absolute percentage error, as a fraction (0.1 = 10 %) */
  /*   MAPE = Σ w·|ŷ − y| / |y| / Σ w   over the rows whose target y ≠ 0 */
  /* A zero target has no percentage error: its rows are left out and counted in */
  /* mape_skipped (scikit-learn divides by max(|y|, ε) instead, ε = 2⁻⁵², which turns a */
  /* zero target into an error of ~10¹⁶). NULL when no row of positive weight has y ≠ 0. */
  SELECT
    slice_1,
    slice_2,
    abs_percentage_error / CAST(nullIf(w_nonzero_label, 0) AS Nullable(Float64)) AS mape,
    CAST(n_zero_label AS Nullable(Int64)) AS mape_skipped
  FROM residuals
)
