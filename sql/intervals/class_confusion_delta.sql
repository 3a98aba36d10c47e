-- class_confusion_delta: the gradient of a smooth function f of the K×K confusion
-- matrix (multiclass_accuracy, _precision, _recall, _f1, _fbeta, _balanced_accuracy,
-- _mcc) in the cells' shares q_ij = C_ij / n of the slice's weight n, cell by cell, for
-- the delta method's se (multinomial_delta.sql) and its units' parts
-- (clustered_multinomial_delta.sql). Each metric's gradient has the form
--   g_ij = [i = j]·{{ g_diagonal }}_i + {{ g_true }}_i + {{ g_predicted }}_j,
-- three terms of a class declared by the metric as SQL over that class's shares tp,
-- support and predicted (its diagonal cell, its row and its column of the matrix), its
-- value class_value = {{ class_value }} (a per-class metric's; NULL where it has none),
-- and the slice's sums over its classes: classes (with a value), covered (their
-- support), covered_mean (Σ support·class_value / covered), correct (Σ tp), agreement
-- (Σ support·predicted), support_squares and predicted_squares; and ḡ = Σ q·g. Shares
-- and gradients are of order 1 whatever the weights' size; weights count as
-- frequencies. g is NULL where the metric's gradient is undefined.
--
-- reads:  class_counts({{ by }}, class, tp, support, predicted),
--         class_confusion({{ by }}, true_class, predicted_class, w)
-- output: {{ by }}, true_class, predicted_class, n, q, g, g_mean (the cells that occur)
SELECT {{ by }}, true_class, predicted_class, n, q, g, SUM(q * g) OVER (PARTITION BY {{ by }}) AS g_mean
FROM (
    -- a cell's gradient: the term of its true class (with the diagonal's when the
    -- classes are one) plus the term of its predicted class
    SELECT {{ by }}, true_class, predicted_class, MIN(n) AS n, MIN(q) AS q,
           CASE WHEN COUNT(term) = 2 THEN SUM(term) END AS g
    FROM (
        SELECT {{ by(sides) }}, sides.true_class, sides.predicted_class, sides.n, sides.q,
               CASE WHEN sides.side = 2 THEN terms.g_predicted
                    WHEN sides.true_class = sides.predicted_class THEN terms.g_true + terms.g_diagonal
                    ELSE terms.g_true
               END AS term
        FROM (
            SELECT {{ by }}, true_class, predicted_class, class, side, n, w / CAST(NULLIF(n, 0) AS DOUBLE) AS q
            FROM (
                SELECT {{ by }}, true_class, predicted_class, true_class AS class, 1 AS side, w,
                       SUM(w) OVER (PARTITION BY {{ by }}) AS n
                FROM class_confusion
                UNION ALL
                SELECT {{ by }}, true_class, predicted_class, predicted_class AS class, 2 AS side, w,
                       SUM(w) OVER (PARTITION BY {{ by }}) AS n
                FROM class_confusion
            ) AS both_sides
        ) AS sides
        JOIN (
            SELECT {{ by }}, class, {{ g_diagonal }} AS g_diagonal, {{ g_true }} AS g_true, {{ g_predicted }} AS g_predicted
            FROM (
                SELECT {{ by }}, class, tp, support, predicted, class_value, classes, covered,
                       covered_sum / CAST(NULLIF(covered, 0) AS DOUBLE) AS covered_mean,
                       correct, agreement, support_squares, predicted_squares
                FROM (
                    SELECT {{ by }}, class, tp, support, predicted, class_value,
                           COUNT(class_value) OVER (PARTITION BY {{ by }}) AS classes,
                           SUM(CASE WHEN class_value IS NOT NULL THEN support END) OVER (PARTITION BY {{ by }}) AS covered,
                           SUM(support * class_value) OVER (PARTITION BY {{ by }}) AS covered_sum,
                           SUM(tp) OVER (PARTITION BY {{ by }}) AS correct,
                           SUM(support * predicted) OVER (PARTITION BY {{ by }}) AS agreement,
                           SUM(support * support) OVER (PARTITION BY {{ by }}) AS support_squares,
                           SUM(predicted * predicted) OVER (PARTITION BY {{ by }}) AS predicted_squares
                    FROM (
                        SELECT {{ by }}, class, tp, support, predicted, {{ class_value }} AS class_value
                        FROM (
                            SELECT {{ by }}, class, tp / CAST(NULLIF(n, 0) AS DOUBLE) AS tp,
                                   support / CAST(NULLIF(n, 0) AS DOUBLE) AS support,
                                   predicted / CAST(NULLIF(n, 0) AS DOUBLE) AS predicted
                            FROM (
                                SELECT {{ by }}, class, tp, support, predicted, SUM(support) OVER (PARTITION BY {{ by }}) AS n
                                FROM class_counts
                            ) AS counted
                            WHERE n > 0
                        ) AS shares
                    ) AS valued
                ) AS summed
            ) AS means
        ) AS terms ON {{ same_slice(sides, terms) }} AND terms.class = sides.class
    ) AS cell_sides
    GROUP BY {{ by }}, true_class, predicted_class
) AS gradients
