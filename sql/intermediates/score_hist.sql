-- score_hist: the score histogram, one row per slice, distinct score and label, with
-- the weight of its positives (w_pos) or of its negatives (w_neg); a score held by both
-- classes has two rows. Shared by auc, average_precision, the threshold metrics and the
-- probability metrics: once rows are summed by score, none of them needs a row. Metrics
-- that run over scores in order use RANGE frames, which take both rows of a score.
--
-- reads:  base({{ by }}, score, label, n, w)
--         the one aggregation over the source: per slice, score and label, n used rows
--         of total weight w
-- output: {{ by }}, score, n, w_pos, w_neg  (n: used rows; the curves' calibration
--         bins count rows)
SELECT {{ by }}, score, n,
       CASE WHEN label = 1 THEN w ELSE 0 END AS w_pos,
       CASE WHEN label = 1 THEN 0 ELSE w END AS w_neg
FROM base
WHERE n > 0
