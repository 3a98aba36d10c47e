-- r2_moments: per slice the sums R²'s influences are taken about (r2_delta.sql,
-- clustered_r2_delta.sql), in the unit of 1 / max |y| (R²'s influences do not change
-- when targets and predictions are multiplied by one constant: no square of a target
-- near 1e200 overflows, none near 1e-200 underflows): W, ȳ, A = SSE/W = Σ w·e²/W
-- (e = ŷ − y) and B = SST/W = Σ w·(y − ȳ)²/W about the first pass's ȳ (no E[x²] − E[x]²
-- cancellation). Only slices of W > 1 whose targets of positive weight differ; B is
-- NULL where SST = 0 (R² is undefined).
--
-- reads:  residuals({{ by }}, w, min_label, max_label), input({{ by }}, score, label, w)
-- output: {{ by }}, total (W), scale, mean_label (ȳ), mse (A), spread (B)
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
