m_auc AS (
  /* auc: area under the ROC curve, as the Mann–Whitney statistic */
  /*   AUC = Σ_pos w⁺(s) · (W⁻(< s) + W⁻(= s) / 2) / (W⁺ · W⁻) */
  /* i.e. the weighted probability that a positive outscores a negative, ties counting ½. */
  /* From the confusion counts at every score (score_cum: tp, fp = the positive, negative */
  /* weight at or above the score, ties included): over pairs of a positive and a negative, */
  /*   Σ_neg w·tp = wins + ties,  Σ_pos w·fp = losses + ties,  W⁺·W⁻ = wins + ties + losses, */
  /*   AUC = (wins + ties / 2) / (W⁺·W⁻) = (W⁺·W⁻ + Σ_neg w·tp − Σ_pos w·fp) / (2·W⁺·W⁻), */
  /* taken as (1 + Σ_neg (w/W⁻)·(tp/W⁺) − Σ_pos (w/W⁺)·(fp/W⁻)) / 2 (W⁺, W⁻: score_cum's */
  /* pos_total, neg_total), so that no product of weights overflows or underflows. */
  /* Without weights the same number is the rank sum: a positive whose tie group shares */
  /* positions rank_from .. rank_to (descending) has the mean ascending rank */
  /* n + 1 − (rank_from + rank_to)/2, n = P + N, so with P positives and N negatives */
  /*   AUC = (Σ_pos (n + 1 − (rank_from + rank_to)/2) − P(P + 1)/2) / (P·N) */
  /*       = 1 + (P(P + 1) − Σ_pos (rank_from + rank_to)) / (2·P·N), */
  /* exact in integers, and over rows it needs no running sum (score_cum_rows.sql). */
  /* NULL when the slice lacks positives or negatives. */
  SELECT
    slice_1,
    slice_2,
    CASE
      WHEN SUM(w_pos) > 0 AND SUM(w_neg) > 0
      THEN (
        1 + SUM(
          w_neg / CAST(NULLIF(neg_total, 0) AS FLOAT64) * (
            tp / CAST(NULLIF(pos_total, 0) AS FLOAT64)
          )
        ) - SUM(
          w_pos / CAST(NULLIF(pos_total, 0) AS FLOAT64) * (
            fp / CAST(NULLIF(neg_total, 0) AS FLOAT64)
          )
        )
      ) / CAST(2 AS FLOAT64)
    END AS auc
  FROM score_cum
  GROUP BY
    slice_1,
    slice_2
)
