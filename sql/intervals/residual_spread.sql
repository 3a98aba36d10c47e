-- residual_spread: per slice, what residual_mean.sql's standard error is taken from: with
-- x the row's value ({{ value }}, over the prediction score and the target label) on the
-- rows where {{ where }} holds,
--   total  = W = Σ w,   mean = m = Σ w·x / W,   spread = Σ w·(x − m)²,
-- in two passes over the used rows (the mean, then the squares about it: no cancellation
-- when the values are nearly equal). Slices of W > 0. A state keeps these per slice, and
-- a roll-up merges them (merged_residual_spread.sql).
--
-- reads:  input({{ by }}, score, label, w)
-- output: {{ by }}, total, mean, spread
SELECT {{ by(v) }}, MIN(m.total) AS total, MIN(m.mean) AS mean,
       SUM(v.w * (v.x - m.mean) * (v.x - m.mean)) AS spread
FROM (
    SELECT {{ by }}, w, {{ value }} AS x
    FROM input
    WHERE w IS NOT NULL AND {{ where }}
) AS v
JOIN (
    SELECT {{ by }}, CAST(SUM(w) AS DOUBLE) AS total, SUM(w * x) / CAST(SUM(w) AS DOUBLE) AS mean
    FROM (
        SELECT {{ by }}, w, {{ value }} AS x
        FROM input
        WHERE w IS NOT NULL AND {{ where }}
    ) AS row_values
    GROUP BY {{ by }}
    HAVING SUM(w) > 0
) AS m ON {{ same_slice(v, m) }}
GROUP BY {{ by(v) }}
