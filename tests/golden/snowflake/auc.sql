m_auc AS (
  /* auc: area under the ROC curve, as the Mann–Whitney statistic */
  /*   AUC = Σ_pos w⁺(s) · (W⁻(< s) + W⁻(= s) / 2) / (W⁺ · W⁻) */
  /* i.e. the weighted probability that a positive outscores a negative, ties counting ½. */
  /* From the score histogram with one running sum per class over the scores in order: */
  /* with W⁻(<= s), W⁺(<= s) the weight at or below s (ties included, a RANGE frame), */
  /*   Σ_pos w·W⁻(<= s) − Σ_neg w·W⁺(<= s) = wins − losses,  W⁺·W⁻ = wins + ties + losses, */
  /*   AUC = (W⁺·W⁻ + wins − losses) / (2·W⁺·W⁻). */
  /* NULL when the slice lacks positives or negatives. */
  SELECT
    slice_1,
    slice_2,
    (
      SUM(w_pos) * SUM(w_neg) + SUM(w_pos * neg_up_to) - SUM(w_neg * pos_up_to)
    ) / NULLIF(2 * SUM(w_pos) * SUM(w_neg), 0) AS auc
  FROM (
    SELECT
      slice_1,
      slice_2,
      w_pos,
      w_neg,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY score
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS neg_up_to,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY score
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS pos_up_to
    FROM score_hist
  ) AS ranked
  GROUP BY
    slice_1,
    slice_2
)
