-- kappa_delta: the gradient of Cohen's κ = 1 − O/E (cohen_kappa) in the cells' shares
-- of the confusion matrix, cell by cell, for the delta method's se
-- (multinomial_delta.sql: the large-sample variance of κ, Fleiss, Cohen & Everitt,
-- 1969, for any disagreement weights) and its units' parts
-- (clustered_multinomial_delta.sql). O = Σ d_ij·q_ij is the observed disagreement over
-- the cells' shares q_ij, E = Σ d_ij·r_i·c_j the disagreement expected from the true
-- and predicted class shares r_i, c_j; the shares are multinomial over the slice's
-- weight n, and the gradient of κ in them is
--   g_ij = (O·(a_i + b_j) − d_ij·E) / E²,  a_i = Σ_j d_ij·c_j,  b_j = Σ_i d_ij·r_i,
-- with ḡ = Σ q·g. Weights count as frequencies; g is NULL where E = 0 (κ itself is
-- NULL there). Reads the metric's own steps.
--
-- reads:  class_pairs({{ by }}, true_class, predicted_class, d, chance = r_i·c_j),
--         totals({{ by }}, n), class_confusion({{ by }}, true_class, predicted_class, w)
-- output: {{ by }}, true_class, predicted_class, n, q, g, g_mean (every pair of classes)
SELECT {{ by }}, true_class, predicted_class, n, q, g, SUM(q * g) OVER (PARTITION BY {{ by }}) AS g_mean
FROM (
    SELECT {{ by }}, true_class, predicted_class, n, q,
           (observed * (a + b) - d * expected) / CAST(NULLIF(expected * expected, 0) AS DOUBLE) AS g
    FROM (
        SELECT {{ by }}, true_class, predicted_class, n, q, d,
               SUM(d * q) OVER (PARTITION BY {{ by }}) AS observed,
               SUM(d * r_i * c_j) OVER (PARTITION BY {{ by }}) AS expected,
               SUM(d * c_j) OVER (PARTITION BY {{ by }}, true_class) AS a,
               SUM(d * r_i) OVER (PARTITION BY {{ by }}, predicted_class) AS b
        FROM (
            -- r_i = Σ_j r_i·c_j and c_j = Σ_i r_i·c_j, the shares summing to 1 on each side
            SELECT {{ by }}, true_class, predicted_class, d, n, q,
                   SUM(chance) OVER (PARTITION BY {{ by }}, true_class) AS r_i,
                   SUM(chance) OVER (PARTITION BY {{ by }}, predicted_class) AS c_j
            FROM (
                SELECT {{ by(pairs) }}, pairs.true_class, pairs.predicted_class, pairs.d, pairs.chance, t.n,
                       COALESCE(c.w, 0) / CAST(NULLIF(t.n, 0) AS DOUBLE) AS q
                FROM class_pairs AS pairs
                JOIN totals AS t ON {{ same_slice(pairs, t) }}
                LEFT JOIN class_confusion AS c
                       ON {{ same_slice(pairs, c) }} AND c.true_class = pairs.true_class
                      AND c.predicted_class = pairs.predicted_class
            ) AS joined
        ) AS cells
    ) AS sums
) AS gradients
