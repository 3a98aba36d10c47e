-- paired_multinomial_delta: the delta method's standard error of the difference of a
-- smooth function f of the K×K confusion matrix (the multi-class metrics of
-- class_confusion_delta, κ of kappa_delta) under two predicted classes of the same rows
-- (sm.compare with predictions=). Each row falls in a cell under each prediction (its
-- true class, and prediction k): the joint cells j (true class, first prediction,
-- second prediction) have multinomial shares q_j of the slice's weight W, and each
-- prediction's cell shares are sums of them. With g_k the gradient of f in prediction
-- k's cell shares (the method's gradients cell by cell, {{ cells }}, evaluated once per
-- prediction: the slice {{ pair }}) and ḡ_k = Σ q·g_k over its cells,
--   h_j = (g_2 − ḡ_2) at j's cell under prediction 2 − (g_1 − ḡ_1) at its cell under 1,
--   se² = Σ_j q_j·(h_j − h̄)² / W,   h̄ = Σ_j q_j·h_j,
-- which is var f_1 + var f_2 − 2·cov(f_1, f_2) (paired_confusion_delta.sql's form, K
-- classes): rows both predictions put in cells of the same gradient cancel. Weights
-- count as frequencies; the spread is given on the rows of the second prediction
-- ({{ pair }} = 2); NULL where f or its gradient is undefined under either prediction.
--
-- reads:  paired_rows({{ by }}, true_class, prediction_1, prediction_2, w),
--         the cells' gradients ({{ by }} and {{ pair }}, true_class, predicted_class, n, q, g, g_mean)
-- output: {{ by }}, {{ pair }}, se, df (NULL: the normal interval)
SELECT {{ by }}, 2 AS {{ pair }},
       CASE WHEN COUNT(CASE WHEN q > 0 AND h IS NULL THEN 1 END) = 0
            THEN SQRT(SUM(q * (h - h_mean) * (h - h_mean)) / CAST(MIN(n) AS DOUBLE))
       END AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by }}, n, q, h, SUM(q * h) OVER (PARTITION BY {{ by }}) AS h_mean
    FROM (
        -- each joint cell's difference of the predictions' centred gradients at its cells
        SELECT {{ by(s) }}, MIN(s.n) AS n, MIN(s.q) AS q,
               CASE WHEN COUNT(f.g) = 2
                    THEN SUM(CASE WHEN f.{{ pair }} = 2 THEN f.g - f.g_mean ELSE f.g_mean - f.g END)
               END AS h
        FROM (
            -- the joint cells' shares of the slice's weight
            SELECT {{ by }}, true_class, prediction_1, prediction_2, n,
                   n_joint / CAST(NULLIF(n, 0) AS DOUBLE) AS q
            FROM (
                SELECT {{ by }}, true_class, prediction_1, prediction_2, n_joint,
                       SUM(n_joint) OVER (PARTITION BY {{ by }}) AS n
                FROM (
                    SELECT {{ by }}, true_class, prediction_1, prediction_2, SUM(w) AS n_joint
                    FROM paired_rows
                    WHERE w IS NOT NULL
                    GROUP BY {{ by }}, true_class, prediction_1, prediction_2
                ) AS joint
            ) AS totalled
        ) AS s
        LEFT JOIN (
{{ cells }}
        ) AS f ON {{ same_pair }} AND f.true_class = s.true_class
              AND f.predicted_class = CASE WHEN f.{{ pair }} = 1 THEN s.prediction_1 ELSE s.prediction_2 END
        GROUP BY {{ by(s) }}, s.true_class, s.prediction_1, s.prediction_2
    ) AS differences
) AS centred
GROUP BY {{ by }}
HAVING MIN(n) > 0
