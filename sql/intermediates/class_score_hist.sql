-- class_score_hist: the one-vs-rest score histograms, one per slice and class: per
-- distinct score of the class, the weight of the rows whose true class is that class
-- (w_pos, the class's positives) and of the others (w_neg, its negatives), and the
-- rows (n). Each class's histogram is score_hist of the binary problem "this class
-- or not", so the binary formulas run on it partitioned by slice and class.
--
-- reads:  class_score_rows({{ by }}, class, score, true_class, w)
--         one row per used row of the source and class: the class's score, the row's
--         true class and weight (wide scores unpivoted in one pass, or long scores
--         joined by row id)
-- output: {{ by }}, class, score, n, w_pos, w_neg
SELECT {{ by }}, class, score, COUNT(*) AS n,
       SUM(CASE WHEN true_class = class THEN w ELSE 0 END) AS w_pos,
       SUM(CASE WHEN true_class = class THEN 0 ELSE w END) AS w_neg
FROM class_score_rows
GROUP BY {{ by }}, class, score
