-- clustered_query_mean: each unit's part of a weighted mean over queries (gauc, ndcg,
-- mrr, ...; query_mean's), for clustered.sql, when the units are not the queries (the
-- requests of a user). With x_q the value of query q (NULL: left out), g_q its weight in
-- the mean and m = Σ g·x / G, G = Σ g over the queries used, a query's influence on m is
-- g_q·(x_q − m)/G, so a unit's part is
--   s_k = Σ_{q in k} g_q·(x_q − m) / G
-- over its used queries. A query lies within one unit (the statement refuses one seen
-- under two: rules/tables.py's query_units), so each query takes its rows' unit; units
-- without a used query have no part.
--
-- reads:  {{ per_query }}, the metric's own per-query step: {{ value }} and {{ weight }};
--         input({{ by }}, query, unit_id, w)
-- output: {{ by }}, unit_id, part
SELECT {{ by(q) }}, u.unit_id, q.weight * (q.value - s.mean) / CAST(NULLIF(s.total, 0) AS DOUBLE) AS part
FROM (
    SELECT {{ by }}, query, CAST({{ value }} AS DOUBLE) AS value, CAST({{ weight }} AS DOUBLE) AS weight
    FROM {{ per_query }}
    WHERE {{ value }} IS NOT NULL
) AS q
JOIN (
    SELECT {{ by }}, SUM(weight * value) / CAST(NULLIF(SUM(weight), 0) AS DOUBLE) AS mean, SUM(weight) AS total
    FROM (
        SELECT {{ by }}, CAST({{ value }} AS DOUBLE) AS value, CAST({{ weight }} AS DOUBLE) AS weight
        FROM {{ per_query }}
        WHERE {{ value }} IS NOT NULL
    ) AS used
    GROUP BY {{ by }}
) AS s ON {{ same_slice(q, s) }}
JOIN (
    -- each query's unit (one: the rule holds)
    SELECT {{ by }}, query, MIN(unit_id) AS unit_id
    FROM input
    WHERE w IS NOT NULL
    GROUP BY {{ by }}, query
) AS u ON {{ same_slice(q, u) }} AND q.query = u.query
