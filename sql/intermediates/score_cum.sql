-- score_cum: the confusion counts at every entry of a score histogram ({{ hist }}), for
-- the metrics that walk the scores in order (auc, average_precision, their one-vs-rest
-- forms per class, the median of the errors): tp and fp, the weight of the positives
-- and of the negatives scoring at or above the entry's score (predicting "score >= s"
-- positive). The RANGE frames take every entry of a tied score together, so all entries
-- of a score have its tp and fp. One sort per slice, shared by the metrics. (Engines
-- that spread rows over workers read score_cum_distributed.sql instead.)
--
-- tie_pos and tie_neg are the positive and negative weight of the entry's score itself
-- (every entry of a tied score; DeLong's interval of auc reads them), from the same sort.
-- rank_from .. rank_to are the positions its rows share in descending score order
-- (1 + the rows above the score .. the rows at or above it); they count rows only when
-- every row weighs 1, and only an unweighted call reads them. (score_cum_rows.sql: the
-- same over rows, where they come from the sort itself.)
--
-- pos_total and neg_total are the slice's positive and negative weight: a weighted
-- metric that multiplies weights (auc: W⁺·W⁻, w·tp) divides each factor by them first,
-- so that no product of weights overflows or underflows (weights of 1e300 or 1e-300
-- give the unweighted value). A metric that does not read them (an unweighted call)
-- leaves their windows out.
--
-- reads:  {{ hist }}({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, score, w_pos, w_neg, tp, fp, tie_pos, tie_neg, rank_from, rank_to,
--         pos_total, neg_total
SELECT {{ by }}, score, w_pos, w_neg, tp, fp, tie_pos, tie_neg,
       tp + fp - tie_pos - tie_neg + 1 AS rank_from, tp + fp AS rank_to, pos_total, neg_total
FROM (
    SELECT {{ by }}, score, w_pos, w_neg,
           SUM(w_pos) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                            RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS tp,
           SUM(w_neg) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                            RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS fp,
           SUM(w_pos) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                            RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS tie_pos,
           SUM(w_neg) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                            RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS tie_neg,
           SUM(w_pos) OVER (PARTITION BY {{ by }}) AS pos_total,
           SUM(w_neg) OVER (PARTITION BY {{ by }}) AS neg_total
    FROM {{ hist }}
) AS cumulative
