-- r2_delta: the delta method's standard error of R² = 1 − SSE/SST. With ȳ the targets'
-- weighted mean, A = SSE/W = Σ w·e²/W (e = ŷ − y) and B = SST/W = Σ w·(y − ȳ)²/W, the
-- influence of a row on R² = 1 − A/B is its gradient (−1/B, A/B²) times the row's
-- values less their means (ȳ's own influence on B is of second order: Σ w·(y − ȳ) = 0):
--   u = −[(e² − A) − (A/B)·((y − ȳ)² − B)] / B,
--   se² = Σ w·u² / (W·(W − 1)),
-- the standard error of the mean of u, weights counting as frequencies (a row of
-- weight 2 is two rows); the normal interval. u does not change when targets and
-- predictions are multiplied by one constant, so both are divided by the largest |y|
-- first (no square of a target near 1e200 overflows, none near 1e-200 underflows).
-- Three passes over the used rows (ȳ, then A and B about it, then u: no E[x²] − E[x]²
-- cancellation). NULL unless W > 1 and the targets of positive weight differ (SST = 0:
-- R² is undefined).
--
-- reads:  residuals({{ by }}, w, min_label, max_label), input({{ by }}, score, label, w)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by(u) }},
       SQRT(SUM(u.w * u.u * u.u) / CAST(MIN(u.total) AS DOUBLE) / CAST(MIN(u.total) - 1 AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by(i) }}, i.w, s.total,
           -(((i.score * s.scale - i.label * s.scale) * (i.score * s.scale - i.label * s.scale) - s.mse)
             - s.mse / CAST(s.spread AS DOUBLE)
               * ((i.label * s.scale - s.mean_label) * (i.label * s.scale - s.mean_label) - s.spread))
           / CAST(s.spread AS DOUBLE) AS u
    FROM input AS i
    JOIN (
        -- A = SSE/W and B = SST/W about the first pass's mean, in the scaled unit
        SELECT {{ by(m) }}, MIN(m.total) AS total, MIN(m.scale) AS scale, MIN(m.mean_label) AS mean_label,
               SUM(r.w * (r.score * m.scale - r.label * m.scale) * (r.score * m.scale - r.label * m.scale))
                   / CAST(MIN(m.total) AS DOUBLE) AS mse,
               NULLIF(SUM(r.w * (r.label * m.scale - m.mean_label) * (r.label * m.scale - m.mean_label)), 0)
                   / CAST(MIN(m.total) AS DOUBLE) AS spread
        FROM input AS r
        JOIN (
            -- ȳ in the scaled unit
            SELECT {{ by(c) }}, MIN(c.total) AS total, MIN(c.scale) AS scale,
                   SUM(x.w * (x.label * c.scale)) / CAST(MIN(c.total) AS DOUBLE) AS mean_label
            FROM input AS x
            JOIN (
                -- W and the unit 1 / max |y|, in slices of W > 1 whose targets differ
                SELECT {{ by }}, CAST(w AS DOUBLE) AS total,
                       1 / CAST(GREATEST(ABS(min_label), ABS(max_label), 1e-300) AS DOUBLE) AS scale
                FROM residuals
                WHERE w > 1 AND min_label < max_label
            ) AS c ON {{ same_slice(x, c) }}
            WHERE x.w IS NOT NULL
            GROUP BY {{ by(c) }}
        ) AS m ON {{ same_slice(r, m) }}
        WHERE r.w IS NOT NULL
        GROUP BY {{ by(m) }}
    ) AS s ON {{ same_slice(i, s) }}
    WHERE i.w IS NOT NULL
) AS u
GROUP BY {{ by(u) }}
