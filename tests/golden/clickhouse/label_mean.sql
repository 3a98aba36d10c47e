m_label_mean AS (
  /* label_mean = Σ w·y / Σ w: the observed positive rate (click-through rate). */
  /* NULL on an empty slice (or one whose weights are all 0). */
  SELECT
    slice_1,
    slice_2,
    SUM(w_pos) / CAST(nullIf(SUM(w_pos + w_neg), 0) AS Nullable(Float64)) AS label_mean
  FROM score_hist
  GROUP BY
    slice_1,
    slice_2
)
