-- auc: area under the ROC curve, as the Mann–Whitney statistic
--   AUC = Σ_pos w⁺(s) · (W⁻(< s) + W⁻(= s) / 2) / (W⁺ · W⁻)
-- i.e. the weighted probability that a positive outscores a negative, ties counting ½.
-- Computed from the score histogram: one running sum over the distinct scores.
-- NULL when the slice lacks positives or negatives.
--
-- reads:  score_hist({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, auc
SELECT {{ by }},
       SUM(w_pos * (neg_below + w_neg / 2)) / NULLIF(SUM(w_pos) * SUM(w_neg), 0) AS auc
FROM (
    SELECT {{ by }}, w_pos, w_neg,
           COALESCE(SUM(w_neg) OVER (
               PARTITION BY {{ by }} ORDER BY score
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS neg_below
    FROM score_hist
) AS ranked
GROUP BY {{ by }}
