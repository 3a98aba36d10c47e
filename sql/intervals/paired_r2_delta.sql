-- paired_r2_delta: the standard error of the difference of two scores' R² over the same
-- rows (sm.compare with scores=). Both share the targets, so ȳ and B = SST/W; each
-- score k has its A_k = SSE_k/W and each row its influence on R²_k (r2_delta.sql)
--   u_k = −[(e_k² − A_k) − (A_k/B)·((y − ȳ)² − B)] / B,
-- and on the difference d = u₂ − u₁, se² = Σ w·d² / (W·(W − 1)), weights counting as
-- frequencies; normal interval. Targets and predictions are divided by the largest |y|
-- first (the influences do not change). Passes over the rows: W and the unit, ȳ, then
-- A_k and B about it, then d (no E[x²] − E[x]² cancellation). The spread is given on
-- the rows of the second score ({{ pair }} = 2); NULL unless W > 1 and the targets of
-- positive weight differ (SST = 0).
--
-- reads:  paired_rows({{ by }}, label, score_1, score_2, w)
-- output: {{ by }}, {{ pair }}, se, df (NULL: the normal interval)
SELECT {{ by(d) }}, 2 AS {{ pair }},
       SQRT(SUM(d.w * d.d * d.d) / CAST(MIN(d.total) AS DOUBLE) / CAST(MIN(d.total) - 1 AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by(i) }}, i.w, s.total,
           -(((i.score_2 * s.scale - i.label * s.scale) * (i.score_2 * s.scale - i.label * s.scale) - s.mse_2)
             - s.mse_2 / CAST(s.spread AS DOUBLE)
               * ((i.label * s.scale - s.mean_label) * (i.label * s.scale - s.mean_label) - s.spread))
           / CAST(s.spread AS DOUBLE)
           + (((i.score_1 * s.scale - i.label * s.scale) * (i.score_1 * s.scale - i.label * s.scale) - s.mse_1)
              - s.mse_1 / CAST(s.spread AS DOUBLE)
                * ((i.label * s.scale - s.mean_label) * (i.label * s.scale - s.mean_label) - s.spread))
           / CAST(s.spread AS DOUBLE) AS d
    FROM paired_rows AS i
    JOIN (
        -- A_1, A_2 and B about the first pass's mean, in the scaled unit
        SELECT {{ by(m) }}, MIN(m.total) AS total, MIN(m.scale) AS scale, MIN(m.mean_label) AS mean_label,
               SUM(r.w * (r.score_1 * m.scale - r.label * m.scale) * (r.score_1 * m.scale - r.label * m.scale))
                   / CAST(MIN(m.total) AS DOUBLE) AS mse_1,
               SUM(r.w * (r.score_2 * m.scale - r.label * m.scale) * (r.score_2 * m.scale - r.label * m.scale))
                   / CAST(MIN(m.total) AS DOUBLE) AS mse_2,
               NULLIF(SUM(r.w * (r.label * m.scale - m.mean_label) * (r.label * m.scale - m.mean_label)), 0)
                   / CAST(MIN(m.total) AS DOUBLE) AS spread
        FROM paired_rows AS r
        JOIN (
            -- ȳ in the scaled unit
            SELECT {{ by(c) }}, MIN(c.total) AS total, MIN(c.scale) AS scale,
                   SUM(x.w * (x.label * c.scale)) / CAST(MIN(c.total) AS DOUBLE) AS mean_label
            FROM paired_rows AS x
            JOIN (
                -- W and the unit 1 / max |y|, in slices of W > 1 whose targets differ
                SELECT {{ by }}, CAST(SUM(w) AS DOUBLE) AS total,
                       1 / CAST(GREATEST(MAX(ABS(CASE WHEN w > 0 THEN label END)), 1e-300) AS DOUBLE) AS scale
                FROM paired_rows
                WHERE w IS NOT NULL
                GROUP BY {{ by }}
                HAVING SUM(w) > 1 AND MIN(CASE WHEN w > 0 THEN label END) < MAX(CASE WHEN w > 0 THEN label END)
            ) AS c ON {{ same_slice(x, c) }}
            WHERE x.w IS NOT NULL
            GROUP BY {{ by(c) }}
        ) AS m ON {{ same_slice(r, m) }}
        WHERE r.w IS NOT NULL
        GROUP BY {{ by(m) }}
    ) AS s ON {{ same_slice(i, s) }}
    WHERE i.w IS NOT NULL
) AS d
GROUP BY {{ by(d) }}
