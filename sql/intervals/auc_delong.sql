-- auc_delong: DeLong's standard error of auc (DeLong, DeLong & Clarke-Pearson 1988).
-- Each positive's placement is the share of the negatives it outscores, each negative's
-- the share of the positives outscoring it, ties counting ½; from score_cum (tp, fp:
-- the positive and negative weight at or above the score),
--   V⁺(s) = (W⁻ − fp + w⁻(s)/2) / W⁻,   V⁻(s) = (tp − w⁺(s)/2) / W⁺,
-- and with AUC the mean placement of either class,
--   se² = Σ_pos w·(V⁺ − AUC)² / ((W⁺ − 1)·W⁺) + Σ_neg w·(V⁻ − AUC)² / ((W⁻ − 1)·W⁻).
-- Weights count as frequencies (a row of weight 2 is two rows). The interval is
-- auc ± z·se, clipped to [0, 1]. NULL unless each class weighs more than 1.
--
-- reads:  score_cum({{ by }}, score, w_pos, w_neg, tp, fp)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by(c) }},
       SQRT(SUM(c.w_pos * POWER((t.neg - c.fp + c.w_neg / 2e0) / t.neg - t.auc, 2)) / MIN((t.pos - 1) * t.pos)
            + SUM(c.w_neg * POWER((c.tp - c.w_pos / 2e0) / t.pos - t.auc, 2)) / MIN((t.neg - 1) * t.neg)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    -- one row per score: score_cum may hold a score's positives and negatives apart
    SELECT {{ by }}, score, SUM(w_pos) AS w_pos, SUM(w_neg) AS w_neg, MIN(tp) AS tp, MIN(fp) AS fp
    FROM score_cum
    GROUP BY {{ by }}, score
) AS c
JOIN (
    SELECT {{ by }}, SUM(w_pos) AS pos, SUM(w_neg) AS neg,
           (SUM(w_pos) * SUM(w_neg) + SUM(w_neg * tp) - SUM(w_pos * fp)) / (2 * SUM(w_pos) * SUM(w_neg)) AS auc
    FROM score_cum
    GROUP BY {{ by }}
    HAVING SUM(w_pos) > 1 AND SUM(w_neg) > 1
) AS t ON {{ same_slice(c, t) }}
GROUP BY {{ by(c) }}
