-- r2: the coefficient of determination
--   R² = 1 − Σ w·(y − ŷ)² / Σ w·(y − ȳ)²,   ȳ = Σ w·y / Σ w
-- The spread of the target is summed in a second pass over the rows, around the mean
-- of the first (stable where Σ w·y² − (Σ w·y)² / Σ w would cancel). NULL when the
-- targets of positive weight are all equal (scikit-learn returns 1.0 or 0.0 there, nan
-- or −inf with force_finite=False) and on an empty slice.
--
-- reads:  residuals({{ by }}, w, w_label, squared_error), input({{ by }}, label, w)
-- output: {{ by }}, r2
WITH means AS (
    SELECT {{ by }}, squared_error, w_label / w AS label_mean
    FROM residuals
    WHERE w > 0
)
SELECT {{ by(m) }},
       CASE WHEN MIN(i.label) < MAX(i.label)
            THEN 1 - MIN(m.squared_error)
                     / SUM(i.w * (i.label - m.label_mean) * (i.label - m.label_mean))
       END AS r2
FROM means AS m
JOIN input AS i ON {{ same_slice(i, m) }}
WHERE i.w > 0
GROUP BY {{ by(m) }}
