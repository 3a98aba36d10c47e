-- paired_query_mean: the standard error of the difference of two scores' means over the
-- same queries (sm.compare with scores=): with d_u = x_u(score 2) − x_u(score 1) over the n
-- queries both use, g_u the query's weight (the same for both: it depends on the labels
-- and weights only) and m = Σ g·d / Σ g,
--   se² = n/(n − 1) · Σ g² (d − m)² / (Σ g)²,   df = n − 1:
-- the paired t-test over queries (scipy.stats.ttest_rel with equal weights). The spread
-- is given on the rows of the second score ({{ pair }} = 2); NULL below two queries.
--
-- reads:  {{ per_query }}, the metric's own per-query step: {{ value }} and {{ weight }}
-- output: {{ by }}, se, df
SELECT {{ by }},
       -- each query's weight as its share of the slice's, so weights of any size give the same se
       SQRT(CAST(COUNT(*) AS DOUBLE) / CAST(COUNT(*) - 1 AS DOUBLE)
            * SUM((weight / CAST(NULLIF(total, 0) AS DOUBLE)) * (weight / CAST(NULLIF(total, 0) AS DOUBLE))
                  * (d - mean) * (d - mean))) AS se,
       COUNT(*) - 1 AS df
FROM (
    SELECT {{ by }}, d, weight,
           SUM(weight * d) OVER (PARTITION BY {{ by }}) / CAST(SUM(weight) OVER (PARTITION BY {{ by }}) AS DOUBLE) AS mean,
           SUM(weight) OVER (PARTITION BY {{ by }}) AS total
    FROM (
        SELECT {{ by(s) }}, s.value - f.value AS d, s.weight
        FROM (
            SELECT {{ by }}, query, CAST({{ value }} AS DOUBLE) AS value, CAST({{ weight }} AS DOUBLE) AS weight
            FROM {{ per_query }}
            WHERE {{ pair }} = 2 AND {{ value }} IS NOT NULL
        ) AS s
        JOIN (
            SELECT {{ by }}, query, CAST({{ value }} AS DOUBLE) AS value
            FROM {{ per_query }}
            WHERE {{ pair }} = 1 AND {{ value }} IS NOT NULL
        ) AS f ON {{ same_pair }} AND s.query = f.query
    ) AS differences
) AS queries
GROUP BY {{ by }}
HAVING COUNT(*) > 1
