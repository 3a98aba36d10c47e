-- score_hist: one row per slice and distinct score, with the weight of its positives
-- and of its negatives. Shared by auc, average_precision, the threshold metrics and the
-- probability metrics: once the rows are summed by score, none of them needs a row.
--
-- reads:  base({{ by }}, score, n, w, w_pos)
--         the one aggregation over the source: per slice and score, n used rows of
--         total weight w, w_pos of it on positives (label 1)
-- output: {{ by }}, score, w_pos, w_neg
SELECT {{ by }}, score, w_pos, w - w_pos AS w_neg
FROM base
WHERE n > 0
