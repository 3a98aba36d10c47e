-- clustered_r2_delta: each unit's part of R² = 1 − SSE/SST (r2), for clustered.sql: a
-- row's influence u = {{ influence }} (r2_delta.sql's, about the slice's moments,
-- r2_moments.sql) summed over the unit's rows, Σ_k w·u / W. NULL unless W > 1 and the
-- targets of positive weight differ (SST = 0: R² is undefined).
--
-- reads:  input({{ by }}, unit_id, score, label, w), the moments ({{ by }}, total, scale, mean_label, mse, spread)
-- output: {{ by }}, unit_id, part
SELECT {{ by(i) }}, i.unit_id, SUM(i.w * {{ influence }}) / CAST(MIN(s.total) AS DOUBLE) AS part
FROM input AS i
JOIN (
{{ moments }}
) AS s ON {{ same_slice(i, s) }}
WHERE i.w IS NOT NULL
GROUP BY {{ by(i) }}, i.unit_id
