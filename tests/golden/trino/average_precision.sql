m_average_precision AS (
  /* average_precision = Σ_t (R_t − R_{t−1}) · P_t over the distinct scores t from the */
  /* highest down (scikit-learn's step sum; tied scores form one threshold), where */
  /* P_t, R_t are precision and recall when predicting score >= t positive. */
  /* Since R_t − R_{t−1} = w⁺(t) / W⁺:  AP = Σ_t w⁺(t) · (TP_t / (TP_t + FP_t)) / W⁺, */
  /* the precision taken first, so that no product of weights overflows or underflows, */
  /* with TP_t, FP_t the tp and fp of score_cum (every entry of a tied score has them). */
  /* Without weights TP_t + FP_t counts the rows at or above t, score_cum's rank_to (over */
  /* rows it comes from the sort: one running sum fewer). */
  /* NULL when the slice lacks positives or negatives. */
  SELECT
    slice_1,
    slice_2,
    CASE
      WHEN SUM(w_neg) > 0
      THEN SUM(w_pos * (
        tp / CAST(NULLIF(tp + fp, 0) AS DOUBLE)
      )) / CAST(NULLIF(SUM(w_pos), 0) AS DOUBLE)
    END AS average_precision
  FROM score_cum
  GROUP BY
    slice_1,
    slice_2
)
