-- auc_delong: DeLong's standard error of auc (DeLong, DeLong & Clarke-Pearson 1988).
-- Each positive's placement is the share of the negatives it outscores, each negative's
-- the share of the positives outscoring it, ties counting ½; from score_cum (tp, fp: the
-- positive and negative weight at or above the score; tie_pos, tie_neg: at the score),
--   V⁺ = 1 − c / W⁻,  c = fp − tie_neg/2;      V⁻ = d / W⁺,  d = tp − tie_pos/2,
-- and with AUC the mean placement of either class,
--   se² = Σ_pos w·(V⁺ − AUC)² / ((W⁺ − 1)·W⁺) + Σ_neg w·(V⁻ − AUC)² / ((W⁻ − 1)·W⁻),
-- where Σ_pos w·(V⁺ − AUC)² / W⁺ = Σ_pos (w/W⁺)·(c/W⁻)² − (Σ_pos (w/W⁺)·(c/W⁻))² (the
-- spread of c over the positives), and likewise for the negatives: one pass over
-- score_cum, each weight divided by its class's total (pos_total, neg_total) before
-- any product, so that none overflows or underflows.
-- Weights count as frequencies (a row of weight 2 is two rows). The interval is
-- auc ± z·se, clipped to [0, 1]. NULL unless each class weighs more than 1.
--
-- reads:  score_cum({{ by }}, score, w_pos, w_neg, tp, fp, tie_pos, tie_neg, pos_total, neg_total)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by }},
       SQRT(GREATEST(pos_c2 - pos_c * pos_c, 0) / CAST((pos - 1) AS DOUBLE) + GREATEST(neg_d2 - neg_d * neg_d, 0) / CAST((neg - 1) AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by }}, CAST(SUM(w_pos) AS DOUBLE) AS pos, CAST(SUM(w_neg) AS DOUBLE) AS neg,
           SUM(w_pos / CAST(pos_total AS DOUBLE) * c) AS pos_c, SUM(w_pos / CAST(pos_total AS DOUBLE) * c * c) AS pos_c2,
           SUM(w_neg / CAST(neg_total AS DOUBLE) * d) AS neg_d, SUM(w_neg / CAST(neg_total AS DOUBLE) * d * d) AS neg_d2
    FROM (
        SELECT {{ by }}, w_pos, w_neg, NULLIF(pos_total, 0) AS pos_total, NULLIF(neg_total, 0) AS neg_total,
               (fp - tie_neg / 2e0) / CAST(NULLIF(neg_total, 0) AS DOUBLE) AS c, (tp - tie_pos / 2e0) / CAST(NULLIF(pos_total, 0) AS DOUBLE) AS d
        FROM score_cum
    ) AS placements
    GROUP BY {{ by }}
    HAVING SUM(w_pos) > 1 AND SUM(w_neg) > 1
) AS sums
