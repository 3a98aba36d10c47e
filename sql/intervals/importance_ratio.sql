-- importance_ratio: the standard error of a self-normalized off-policy estimator (snips,
-- sndr) by the delta method: the estimate V = Σ k·c / W + Σ k·a / Σ k·b of each row's
-- {{ offset }} (c), {{ numerator }} (a) and {{ denominator }} (b), k the row weight,
-- W = Σ k, has the influence per row
--   u = (c − c̄) + (a − R·b) / b̄,   c̄ = Σ k·c / W,   R = Σ k·a / Σ k·b,   b̄ = Σ k·b / W,
-- and se² = Σ k·u² / (W·(W − 1)), weights counting as frequencies (snips: c = 0, a = w·r,
-- b = w, u = w·(r − V) / w̄); the normal interval. Two passes over the used rows (the
-- means, then the influences). NULL unless W > 1 and Σ k·b ≠ 0.
--
-- reads:  input({{ by }}, w and the columns of the values)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by(v) }}, SQRT(SUM(v.w * v.u * v.u) / CAST((MIN(v.total) - 1) * MIN(v.total) AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by(r) }}, r.w, m.total, (r.c - m.c_mean) + (r.a - m.ratio * r.b) / CAST(m.b_mean AS DOUBLE) AS u
    FROM (
        SELECT {{ by }}, w, {{ offset }} AS c, {{ numerator }} AS a, {{ denominator }} AS b
        FROM input
        WHERE w IS NOT NULL
    ) AS r
    JOIN (
        SELECT {{ by }}, CAST(SUM(w) AS DOUBLE) AS total, SUM(w * c) / CAST(SUM(w) AS DOUBLE) AS c_mean,
               SUM(w * a) / CAST(SUM(w * b) AS DOUBLE) AS ratio, SUM(w * b) / CAST(SUM(w) AS DOUBLE) AS b_mean
        FROM (
            SELECT {{ by }}, w, {{ offset }} AS c, {{ numerator }} AS a, {{ denominator }} AS b
            FROM input
            WHERE w IS NOT NULL
        ) AS row_values
        GROUP BY {{ by }}
        HAVING SUM(w) > 1 AND SUM(w * b) <> 0
    ) AS m ON {{ same_slice(r, m) }}
) AS v
GROUP BY {{ by(v) }}
