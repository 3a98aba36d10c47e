-- clustered_delong: each unit's part of auc, for clustered.sql (the clustered DeLong
-- variance of Obuchowski, 1997): a positive's influence is its placement V⁺ (the share
-- of the negatives it outscores, ties ½) less AUC, over W⁺/W; a negative's its V⁻ (the
-- share of the positives outscoring it) less AUC, over W⁻/W. A unit's part is
--   Σ_pos w·(V⁺ − AUC) / W⁺ + Σ_neg w·(V⁻ − AUC) / W⁻
-- over its rows, from its histogram of scores and the slice's placements per score
-- (score_cum, as auc_delong.sql reads them).
--
-- reads:  input({{ by }}, unit_id, label, score, w),
--         score_cum({{ by }}, score, w_pos, w_neg, tp, fp, tie_pos, tie_neg, pos_total, neg_total)
-- output: {{ by }}, unit_id, part
SELECT {{ by(h) }}, h.unit_id,
       h.w_pos * (c.pos_placement - a.auc) / CAST(NULLIF(c.pos_total, 0) AS DOUBLE)
       + h.w_neg * (c.neg_placement - a.auc) / CAST(NULLIF(c.neg_total, 0) AS DOUBLE) AS part
FROM (
    SELECT {{ by }}, unit_id, score, SUM(CASE WHEN label = 1 THEN w ELSE 0 END) AS w_pos,
           SUM(CASE WHEN label = 1 THEN 0 ELSE w END) AS w_neg
    FROM input
    WHERE w IS NOT NULL
    GROUP BY {{ by }}, unit_id, score
) AS h
JOIN (
    -- one row per score (score_cum may hold a row per used row, its ties sharing the sums)
    SELECT {{ by }}, score, MIN(pos_total) AS pos_total, MIN(neg_total) AS neg_total,
           MIN(1 - (fp - tie_neg / 2e0) / CAST(NULLIF(neg_total, 0) AS DOUBLE)) AS pos_placement,
           MIN((tp - tie_pos / 2e0) / CAST(NULLIF(pos_total, 0) AS DOUBLE)) AS neg_placement
    FROM score_cum
    GROUP BY {{ by }}, score
) AS c ON {{ same_slice(h, c) }} AND h.score = c.score
JOIN (
    SELECT {{ by }},
           SUM(w_pos * (1 - (fp - tie_neg / 2e0) / CAST(NULLIF(neg_total, 0) AS DOUBLE)))
           / CAST(NULLIF(MIN(pos_total), 0) AS DOUBLE) AS auc
    FROM score_cum
    GROUP BY {{ by }}
) AS a ON {{ same_slice(h, a) }}
