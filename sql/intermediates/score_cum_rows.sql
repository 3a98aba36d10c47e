-- score_cum over rows: score_cum.sql when the score histogram holds one entry per used
-- row (score_rows.sql: the scores are nearly all distinct). The same columns, and
-- rank_from .. rank_to, the positions a row's tie group shares in descending score
-- order, come from the sort itself (RANK() and the group's last row), without summing:
-- an unweighted auc reads only them, and the engine then computes no running sum.
-- pos_total, neg_total: the slice's positive and negative weight, as in score_cum.sql.
--
-- reads:  {{ hist }}({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, score, w_pos, w_neg, tp, fp, tie_pos, tie_neg, rank_from, rank_to,
--         pos_total, neg_total
SELECT {{ by }}, score, w_pos, w_neg,
       SUM(w_pos) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS tp,
       SUM(w_neg) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS fp,
       SUM(w_pos) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                        RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS tie_pos,
       SUM(w_neg) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                        RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS tie_neg,
       RANK() OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST) AS rank_from,
       COUNT(*) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                      RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rank_to,
       SUM(w_pos) OVER (PARTITION BY {{ by }}) AS pos_total,
       SUM(w_neg) OVER (PARTITION BY {{ by }}) AS neg_total
FROM {{ hist }}
