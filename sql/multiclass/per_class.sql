-- per_class: per slice and class, what scikit-learn's
-- precision_recall_fscore_support(average=None, zero_division=np.nan) returns, NULL for
-- its NaN (0/0):
--   support    Σ w over rows of this true class
--   precision  tp / predicted
--   recall     tp / support
--   fscore     (1 + β²)·tp / (β²·support + predicted)   (F1 at β = 1), taken as
--              tp / (r·support + q·predicted) as in fbeta.sql (no overflow)
-- The classes of a slice are those present as a label or as a prediction.
--
-- reads:  class_counts({{ by }}, class, tp, support, predicted)
-- params: {{ beta }} -- DOUBLE > 0, the F-score's β
-- output: {{ by }}, class, support, precision, recall, fscore
SELECT {{ by }}, class, support,
       tp / CAST(NULLIF(predicted, 0) AS DOUBLE) AS precision,
       tp / CAST(NULLIF(support, 0) AS DOUBLE) AS recall,
       tp / CAST(NULLIF(bw.r * support + bw.q * predicted, 0) AS DOUBLE) AS fscore
FROM class_counts
CROSS JOIN (
    SELECT b * b / CAST((1 + b * b) AS DOUBLE) AS r, 1 / CAST((1 + b * b) AS DOUBLE) AS q
    FROM (SELECT LEAST({{ beta }}, 1e100) AS b) AS held
) AS bw
