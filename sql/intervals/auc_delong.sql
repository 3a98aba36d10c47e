-- auc_delong: DeLong's standard error of auc (DeLong, DeLong & Clarke-Pearson 1988).
-- Each positive's placement is the share of the negatives it outscores, each negative's
-- the share of the positives outscoring it, ties counting ½; from score_cum (tp, fp: the
-- positive and negative weight at or above the score; tie_pos, tie_neg: at the score),
--   V⁺ = 1 − c / W⁻,  c = fp − tie_neg/2;      V⁻ = d / W⁺,  d = tp − tie_pos/2,
-- and with AUC the mean placement of either class,
--   se² = Σ_pos w·(V⁺ − AUC)² / ((W⁺ − 1)·W⁺) + Σ_neg w·(V⁻ − AUC)² / ((W⁻ − 1)·W⁻),
-- each a weighted variance about its class's mean placement, in two passes (the means,
-- then the squares about them: no cancellation when the placements are nearly equal),
-- each weight divided by its class's total (pos_total, neg_total) before any product,
-- so that none overflows or underflows.
-- Weights count as frequencies (a row of weight 2 is two rows). The interval is
-- auc ± z·se, clipped to [0, 1]. NULL unless each class weighs more than 1.
--
-- reads:  score_cum({{ by }}, score, w_pos, w_neg, tp, fp, tie_pos, tie_neg, pos_total, neg_total)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by(p) }},
       SQRT(SUM(p.pos_share * (p.c - m.pos_c) * (p.c - m.pos_c)) / CAST(MIN(m.pos) - 1 AS DOUBLE)
            + SUM(p.neg_share * (p.d - m.neg_d) * (p.d - m.neg_d)) / CAST(MIN(m.neg) - 1 AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by }}, w_pos / CAST(NULLIF(pos_total, 0) AS DOUBLE) AS pos_share,
           w_neg / CAST(NULLIF(neg_total, 0) AS DOUBLE) AS neg_share,
           (fp - tie_neg / 2e0) / CAST(NULLIF(neg_total, 0) AS DOUBLE) AS c,
           (tp - tie_pos / 2e0) / CAST(NULLIF(pos_total, 0) AS DOUBLE) AS d
    FROM score_cum
) AS p
JOIN (
    SELECT {{ by }}, SUM(w_pos) AS pos, SUM(w_neg) AS neg,
           SUM(w_pos / CAST(NULLIF(pos_total, 0) AS DOUBLE) * ((fp - tie_neg / 2e0) / CAST(NULLIF(neg_total, 0) AS DOUBLE))) AS pos_c,
           SUM(w_neg / CAST(NULLIF(neg_total, 0) AS DOUBLE) * ((tp - tie_pos / 2e0) / CAST(NULLIF(pos_total, 0) AS DOUBLE))) AS neg_d
    FROM score_cum
    GROUP BY {{ by }}
    HAVING SUM(w_pos) > 1 AND SUM(w_neg) > 1
) AS m ON {{ same_slice(p, m) }}
GROUP BY {{ by(p) }}
