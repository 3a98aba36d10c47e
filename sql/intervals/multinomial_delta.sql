-- multinomial_delta: the delta method's standard error of a smooth function f of the
-- K×K confusion matrix (class_confusion_delta's multi-class metrics, kappa_delta's κ)
-- from its gradient g in the cells' shares q (the method's template, cell by cell):
-- the shares are multinomial over the slice's weight n, so with ḡ = Σ q·g,
--   se² = Σ_ij q_ij·(g_ij − ḡ)² / n,
-- over the cells that occur (a cell of share 0 adds nothing). Weights count as
-- frequencies. The normal interval, clipped to the metric's range; NULL where the
-- gradient of an occurring cell is (and where f is) undefined.
--
-- reads:  the cells' gradients ({{ by }}, true_class, predicted_class, n, q, g, g_mean)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by }},
       CASE WHEN COUNT(CASE WHEN q > 0 AND g IS NULL THEN 1 END) = 0
            THEN SQRT(SUM(q * (g - g_mean) * (g - g_mean)) / CAST(MIN(n) AS DOUBLE))
       END AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
{{ cells }}
) AS centred
GROUP BY {{ by }}
HAVING MIN(n) > 0
