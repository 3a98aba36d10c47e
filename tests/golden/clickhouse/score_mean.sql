m_score_mean AS (
  /* score_mean = Σ w·p / Σ w: the mean predicted score. */
  /* NULL on an empty slice (or one whose weights are all 0). */
  SELECT
    slice_1,
    slice_2,
    SUM((
      w_pos + w_neg
    ) * score) / CAST(nullIf(SUM(w_pos + w_neg), 0) AS Nullable(Float64)) AS score_mean
  FROM score_hist
  GROUP BY
    slice_1,
    slice_2
)
