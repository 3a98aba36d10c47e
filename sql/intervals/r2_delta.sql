-- r2_delta: the delta method's standard error of R² = 1 − SSE/SST. With ȳ the targets'
-- weighted mean, A = SSE/W = Σ w·e²/W (e = ŷ − y) and B = SST/W = Σ w·(y − ȳ)²/W
-- (r2_moments.sql, in the unit of 1 / max |y|), the influence of a row on R² = 1 − A/B
-- is its gradient (−1/B, A/B²) times the row's values less their means (ȳ's own
-- influence on B is of second order: Σ w·(y − ȳ) = 0):
--   u = −[(e² − A) − (A/B)·((y − ȳ)² − B)] / B,
--   se² = Σ w·u² / (W·(W − 1)),
-- the standard error of the mean of u, weights counting as frequencies (a row of
-- weight 2 is two rows); the normal interval. NULL unless W > 1 and the targets of
-- positive weight differ (SST = 0: R² is undefined).
--
-- reads:  input({{ by }}, score, label, w), the moments ({{ by }}, total, scale, mean_label, mse, spread)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by(u) }},
       SQRT(SUM(u.w * u.u * u.u) / CAST(MIN(u.total) AS DOUBLE) / CAST(MIN(u.total) - 1 AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by(i) }}, i.w, s.total, {{ influence }} AS u
    FROM input AS i
    JOIN (
{{ moments }}
    ) AS s ON {{ same_slice(i, s) }}
    WHERE i.w IS NOT NULL
) AS u
GROUP BY {{ by(u) }}
