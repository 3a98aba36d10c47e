-- class_counts: per slice and class, the weights every multi-class metric is computed
-- from (scikit-learn's multilabel_confusion_matrix):
--   tp         Σ w over rows whose true and predicted class are both this class
--   support    Σ w over rows whose true class is this class
--   predicted  Σ w over rows predicted as this class
-- The classes of a slice are those present as a label or as a prediction: a class that
-- is only ever predicted has support 0 (each of its predictions a false positive), a
-- class never predicted has predicted 0.
--
-- reads:  class_confusion({{ by }}, true_class, predicted_class, w)
-- output: {{ by }}, class, tp, support, predicted
SELECT {{ by }}, class, SUM(tp) AS tp, SUM(support) AS support, SUM(predicted) AS predicted
FROM (
    SELECT {{ by }}, true_class AS class,
           CASE WHEN true_class = predicted_class THEN w ELSE 0 END AS tp,
           w AS support, 0 AS predicted
    FROM class_confusion
    UNION ALL
    SELECT {{ by }}, predicted_class AS class, 0 AS tp, 0 AS support, w AS predicted
    FROM class_confusion
) AS sides
GROUP BY {{ by }}, class
