-- multiclass_mcc: the Matthews correlation coefficient in its multi-class form
-- (scikit-learn's matthews_corrcoef; with two classes, the binary MCC):
--   MCC = (c·n − Σ_k t_k·p_k) / √((n² − Σ_k p_k²)·(n² − Σ_k t_k²))
-- with n the total weight, c = Σ tp the weight of correct rows, t_k = support and
-- p_k = predicted weight of class k. NULL when all weight is predicted as one class or
-- belongs to one true class (the denominator is 0; scikit-learn returns 0.0 there):
-- tested on the classes that carry weight, not on the rounded denominator. Each count
-- is divided by n first (the same value), so that no product of weights overflows or
-- underflows.
--
-- reads:  class_counts({{ by }}, class, tp, support, predicted)
-- output: {{ by }}, mcc
WITH slice_weights AS (
    SELECT {{ by }}, SUM(support) AS n
    FROM class_counts
    GROUP BY {{ by }}
),
shares AS (
    SELECT {{ by(c) }}, c.tp / CAST(NULLIF(s.n, 0) AS DOUBLE) AS tp, c.support / CAST(NULLIF(s.n, 0) AS DOUBLE) AS support,
           c.predicted / CAST(NULLIF(s.n, 0) AS DOUBLE) AS predicted
    FROM class_counts AS c
    JOIN slice_weights AS s ON {{ same_slice(c, s) }}
),
totals AS (
    SELECT {{ by }}, SUM(support) AS n, SUM(tp) AS correct, SUM(support * predicted) AS agreement,
           SUM(predicted * predicted) AS predicted_squares, SUM(support * support) AS support_squares,
           COUNT(CASE WHEN predicted > 0 THEN 1 END) AS predicted_classes,
           COUNT(CASE WHEN support > 0 THEN 1 END) AS true_classes
    FROM shares
    GROUP BY {{ by }}
)
SELECT {{ by }},
       CASE WHEN predicted_classes > 1 AND true_classes > 1
            THEN (correct * n - agreement) / SQRT((n * n - predicted_squares) * (n * n - support_squares))
       END AS mcc
FROM totals
