-- curve_thresholds: the thresholds of the ROC and precision–recall curves, one row per
-- slice and distinct score of positive weight, numbered from the highest score down
-- (point 1, 2, ..., points). Predicting "score >= threshold" positive at point k gives
-- tp, fp: the weight of the positives and negatives scoring >= the k-th score.
-- Scores whose rows all have weight 0 are no thresholds (scikit-learn drops
-- zero-weight rows). next_w_pos, next_w_neg are the weights of the next lower score
-- (NULL at the last point): the drop_intermediate rules compare neighbours with them.
-- positives, negatives: the slice's totals (the last tp and fp).
--
-- reads:  score_hist({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, point, points, score, w_pos, w_neg, next_w_pos, next_w_neg,
--         tp, fp, positives, negatives
SELECT {{ by }}, point, MAX(point) OVER (PARTITION BY {{ by }}) AS points,
       score, w_pos, w_neg, next_w_pos, next_w_neg, tp, fp,
       MAX(tp) OVER (PARTITION BY {{ by }}) AS positives,
       MAX(fp) OVER (PARTITION BY {{ by }}) AS negatives
FROM (
    SELECT {{ by }}, score, w_pos, w_neg,
           ROW_NUMBER() OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST) AS point,
           LEAD(w_pos) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST) AS next_w_pos,
           LEAD(w_neg) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST) AS next_w_neg,
           SUM(w_pos) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS tp,
           SUM(w_neg) OVER (PARTITION BY {{ by }} ORDER BY score DESC NULLS LAST
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS fp
    FROM (
        SELECT {{ by }}, score, CAST(SUM(w_pos) AS DOUBLE) AS w_pos, CAST(SUM(w_neg) AS DOUBLE) AS w_neg
        FROM score_hist
        GROUP BY {{ by }}, score
        HAVING SUM(w_pos) + SUM(w_neg) > 0
    ) AS scores
) AS running
