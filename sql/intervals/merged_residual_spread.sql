-- merged_residual_spread: residual_spread.sql's W, m and Σ w·(x − m)² of the union of
-- parts (states' slices, days, files) from each part's own (W_i, m_i, S_i) in
-- {{ parts }} (value = m_i, weight = W_i, spread = S_i), exactly as over the rows:
--   W = Σ W_i,   m = Σ W_i·m_i / W,   Σ w·(x − m)² = Σ [S_i + W_i·(m_i − m)²]
-- (Chan, Golub and LeVeque's pairwise update: each part's squares about its own mean,
-- then its mean's distance from the whole's; no E[x²] − E[x]² cancellation).
--
-- reads:  {{ parts }}({{ by }}, value, weight, spread)
-- output: {{ by }}, total, mean, spread
SELECT {{ by(p) }}, MIN(m.total) AS total, MIN(m.mean) AS mean,
       SUM(p.spread + p.weight * (p.value - m.mean) * (p.value - m.mean)) AS spread
FROM {{ parts }} AS p
JOIN (
    SELECT {{ by }}, CAST(SUM(weight) AS DOUBLE) AS total, SUM(weight * value) / CAST(SUM(weight) AS DOUBLE) AS mean
    FROM {{ parts }}
    GROUP BY {{ by }}
    HAVING SUM(weight) > 0
) AS m ON {{ same_slice(p, m) }}
GROUP BY {{ by(p) }}
