-- auc: area under the ROC curve, as the Mann–Whitney statistic
--   AUC = Σ_pos w⁺(s) · (W⁻(< s) + W⁻(= s) / 2) / (W⁺ · W⁻)
-- i.e. the weighted probability that a positive outscores a negative, ties counting ½.
-- From the confusion counts at every score (score_cum: tp, fp = the positive, negative
-- weight at or above the score, ties included): over pairs of a positive and a negative,
--   Σ_neg w·tp = wins + ties,  Σ_pos w·fp = losses + ties,  W⁺·W⁻ = wins + ties + losses,
--   AUC = (wins + ties / 2) / (W⁺·W⁻) = (W⁺·W⁻ + Σ_neg w·tp − Σ_pos w·fp) / (2·W⁺·W⁻).
-- NULL when the slice lacks positives or negatives.
--
-- reads:  score_cum({{ by }}, w_pos, w_neg, tp, fp)
-- output: {{ by }}, auc
SELECT {{ by }},
       (SUM(w_pos) * SUM(w_neg) + SUM(w_neg * tp) - SUM(w_pos * fp))
       / NULLIF(2 * SUM(w_pos) * SUM(w_neg), 0) AS auc
FROM score_cum
GROUP BY {{ by }}
