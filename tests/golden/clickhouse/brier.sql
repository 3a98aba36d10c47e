m_brier AS (
  /* brier = Σ w · (p − y)² / Σ w, the mean squared error of the predicted probability. */
  /* NULL on an empty slice (or one whose weights are all 0). */
  SELECT
    slice_1,
    slice_2,
    SUM(w_pos * (
      1 - score
    ) * (
      1 - score
    ) + w_neg * score * score) / CAST(nullIf(SUM(w_pos + w_neg), 0) AS Nullable(Float64)) AS brier
  FROM score_hist
  GROUP BY
    slice_1,
    slice_2
)
