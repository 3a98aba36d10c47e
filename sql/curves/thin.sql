-- thinned: at most 2 · {{ buckets }} points of each slice's curve, its first and last
-- among them (see sqlmetrics/curves/_thin.py for the rule's error bound).
-- Walking the points in order, each step's L1 length |Δx| + |Δy| (NULL coordinates
-- count 0) is rounded up to a whole number of 2^-32 units, so the running length
-- `walked` is an exact integer sum whatever order an engine adds in. The total length
-- is cut into {{ buckets }} equal buckets; the first and the last point of each bucket
-- are kept.
--
-- reads:  curve({{ by }}, point, {{ x }}, {{ y }}, {{ columns }})
-- params: {{ buckets }} (an integer >= 1)
-- output: {{ by }}, point, {{ columns }}
SELECT {{ by }}, point, {{ columns }}
FROM (
    SELECT *,
           MIN(point) OVER (PARTITION BY {{ by }}, bucket) AS first_point,
           MAX(point) OVER (PARTITION BY {{ by }}, bucket) AS last_point
    FROM (
        SELECT *,
               COALESCE(LEAST(FLOOR(CAST(walked AS DOUBLE) * {{ buckets }} / CAST(NULLIF(length, 0) AS DOUBLE)),
                              {{ buckets }} - 1), 0) AS bucket
        FROM (
            SELECT *,
                   SUM(step) OVER (PARTITION BY {{ by }} ORDER BY point ASC NULLS LAST
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS walked,
                   SUM(step) OVER (PARTITION BY {{ by }}) AS length
            FROM (
                SELECT *,
                       CAST(CEIL((COALESCE(ABS({{ x }} - LAG({{ x }}) OVER (PARTITION BY {{ by }} ORDER BY point ASC NULLS LAST)), 0)
                                  + COALESCE(ABS({{ y }} - LAG({{ y }}) OVER (PARTITION BY {{ by }} ORDER BY point ASC NULLS LAST)), 0))
                                 * 4294967296) AS BIGINT) AS step
                FROM curve
            ) AS steps
        ) AS walks
    ) AS buckets
) AS ends
WHERE point = first_point OR point = last_point
