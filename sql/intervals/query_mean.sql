-- query_mean: the standard error of a metric that is a weighted mean over independent
-- queries (gauc, ndcg, mrr, map, ...). With x_u the value of query u (NULL: left out),
-- g_u its weight in the mean and m = Σ g·x / Σ g over the n queries used,
--   se² = n/(n − 1) · Σ g² (x − m)² / (Σ g)²,
-- and the interval m ± t·se with Student's t at n − 1 degrees of freedom (df); with
-- equal weights, se is the sample standard deviation over √n. NULL below two queries.
--
-- reads:  {{ per_query }}, the metric's own per-query step: {{ value }} and {{ weight }}
-- output: {{ by }}, se, df
SELECT {{ by(q) }},
       -- each query's weight as its share of the slice's, so weights of any size give the same se
       SQRT(CAST(COUNT(*) AS DOUBLE) / CAST(COUNT(*) - 1 AS DOUBLE)
            * SUM((q.weight / CAST(NULLIF(s.total, 0) AS DOUBLE)) * (q.weight / CAST(NULLIF(s.total, 0) AS DOUBLE))
                  * (q.value - s.mean) * (q.value - s.mean))) AS se,
       COUNT(*) - 1 AS df
FROM (
    SELECT {{ by }}, CAST({{ value }} AS DOUBLE) AS value, CAST({{ weight }} AS DOUBLE) AS weight
    FROM {{ per_query }}
    WHERE {{ value }} IS NOT NULL
) AS q
JOIN (
    SELECT {{ by }}, SUM(weight * value) / CAST(SUM(weight) AS DOUBLE) AS mean, SUM(weight) AS total
    FROM (
        SELECT {{ by }}, CAST({{ value }} AS DOUBLE) AS value, CAST({{ weight }} AS DOUBLE) AS weight
        FROM {{ per_query }}
        WHERE {{ value }} IS NOT NULL
    ) AS used
    GROUP BY {{ by }}
) AS s ON {{ same_slice(q, s) }}
GROUP BY {{ by(q) }}
HAVING COUNT(*) > 1
