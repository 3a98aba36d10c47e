-- score_hist: one row per slice and distinct score, with the weight of its positives
-- and of its negatives. Shared by auc, average_precision, the threshold metrics and the
-- probability metrics: once the rows are summed by score, none of them needs a row.
--
-- reads:  base({{ by }}, [query,] score, label, excluded, n, w)
--         the one aggregation over the source (rows grouped by slice, score and label)
-- output: {{ by }}, score, w_pos, w_neg
SELECT {{ by }}, score,
       SUM(CASE WHEN label = 1 THEN w ELSE 0 END) AS w_pos,
       SUM(CASE WHEN label = 0 THEN w ELSE 0 END) AS w_neg
FROM base
WHERE NOT excluded
GROUP BY {{ by }}, score
