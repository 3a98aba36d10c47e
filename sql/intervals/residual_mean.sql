-- residual_mean: the standard error of a regression metric that is a weighted mean of a
-- value of each row (mae, mse, mean_error, mape), or a function of one (rmse): with x
-- the row's value ({{ value }}, over the prediction score and the target label) on the
-- rows where {{ where }} holds, W their summed weight and m their weighted mean,
--   se(m)² = s² / W,   s² = Σ w·(x − m)² / (W − 1),
-- weights counting as frequencies (a row of weight 2 is two rows); the metric f(m) has
-- se = se(m)·|f'(m)| (the delta method; f'(m) = {{ slope }}, 1 for a mean itself, and
-- 1 / (2·√m) for rmse = √mse); the normal interval. Two passes over the used rows (the
-- mean, then the squares about it: no cancellation when the values are nearly equal).
-- NULL unless W > 1 (and where f'(m) is undefined).
--
-- reads:  input({{ by }}, score, label, w)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by }}, se_of_mean * ({{ slope }}) AS se, CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by(v) }}, MIN(m.mean) AS mean,
           SQRT(SUM(v.w * (v.x - m.mean) * (v.x - m.mean)) / CAST((MIN(m.total) - 1) * MIN(m.total) AS DOUBLE)) AS se_of_mean
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
        HAVING SUM(w) > 1
    ) AS m ON {{ same_slice(v, m) }}
    GROUP BY {{ by(v) }}
) AS of_mean
