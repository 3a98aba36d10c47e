-- clustered_multinomial_delta: each unit's part of a smooth function f of the K×K
-- confusion matrix (class_confusion_delta's multi-class metrics, kappa_delta's κ), for
-- clustered.sql. A row in cell (i, j) has influence g_ij − ḡ, with g the gradient of f
-- in the slice's cells' shares and ḡ = Σ q·g (the method's template, cell by cell), so
-- a unit's part is
--   Σ_ij n_k,ij·(g_ij − ḡ) / n,
-- n_k,ij the unit's weight in cell (i, j), n the slice's (one pass over the rows, then
-- one over the units' cells). NULL where a cell the unit weighs has no gradient.
--
-- reads:  input({{ by }}, unit_id, true_class, predicted_class, w),
--         the cells' gradients ({{ by }}, true_class, predicted_class, n, q, g, g_mean)
-- output: {{ by }}, unit_id, part
SELECT {{ by(u) }}, u.unit_id,
       CASE WHEN COUNT(CASE WHEN u.w <> 0 AND c.g IS NULL THEN 1 END) = 0
            THEN SUM(CASE WHEN u.w <> 0 THEN u.w * (c.g - c.g_mean) ELSE 0 END) / CAST(MIN(c.n) AS DOUBLE)
       END AS part
FROM (
    -- each unit's weight in each cell
    SELECT {{ by }}, unit_id, true_class, predicted_class, SUM(w) AS w
    FROM input
    WHERE w IS NOT NULL
    GROUP BY {{ by }}, unit_id, true_class, predicted_class
) AS u
JOIN (
{{ cells }}
) AS c ON {{ same_slice(u, c) }} AND c.true_class = u.true_class AND c.predicted_class = u.predicted_class
WHERE c.n > 0
GROUP BY {{ by(u) }}, u.unit_id
