-- proportion: the standard error of a metric that is a share of the confusion counts at
-- its threshold (accuracy, precision, recall, specificity): with s = {{ successes }} out
-- of n = {{ trials }} and p = s / n, the binomial
--   se² = p·(1 − p) / n = s·(n − s) / n³,  taken as (s/n)·((n − s)/n)/n (no product of
-- weights, so no overflow),
-- weights counting as frequencies; the normal interval, clipped to [0, 1]. NULL when
-- n = 0 (and no wider than the point when p is 0 or 1).
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by }},
       SQRT(({{ successes }}) / CAST(({{ trials }}) AS DOUBLE) * ((({{ trials }}) - ({{ successes }})) / CAST(({{ trials }}) AS DOUBLE)) / CAST(({{ trials }}) AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM confusion
WHERE threshold = {{ threshold }} AND {{ trials }} > 0
