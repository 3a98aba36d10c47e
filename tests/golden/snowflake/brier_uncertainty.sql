m_brier_uncertainty AS (
  /* brier_uncertainty: the Brier score's uncertainty in Murphy's decomposition, ō·(1 − ō) */
  /* with ō = Σ w·y / Σ w the slice's positive rate (1 − ō taken as Σ w·(1 − y) / Σ w): the */
  /* Brier score of predicting the base rate, the same for every binning. NULL when the */
  /* slice's weight is 0. */
  SELECT
    slice_1,
    slice_2,
    (
      SUM(w_pos) / CAST(NULLIF(SUM(w_pos + w_neg), 0) AS DOUBLE)
    ) * (
      SUM(w_neg) / CAST(NULLIF(SUM(w_pos + w_neg), 0) AS DOUBLE)
    ) AS brier_uncertainty
  FROM score_hist
  GROUP BY
    slice_1,
    slice_2
)
