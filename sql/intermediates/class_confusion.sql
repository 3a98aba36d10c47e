-- class_confusion: the weighted confusion matrix of each slice, one row per pair of
-- true class and predicted class that occurs in the used rows (a pair of rows that all
-- weigh 0 still occurs: its classes are present, as in scikit-learn). Classes are
-- compared as they are (numbers, strings or booleans), never cast.
--
-- reads:  base({{ by }}, true_class, predicted_class, n, w)
--         the one aggregation over the source, keyed by both classes for multi-class
--         metrics: n used rows of total weight w
-- output: {{ by }}, true_class, predicted_class, n (rows), w (summed weight)
SELECT {{ by }}, true_class, predicted_class, CAST(SUM(n) AS BIGINT) AS n, SUM(w) AS w
FROM base
WHERE n > 0
GROUP BY {{ by }}, true_class, predicted_class
