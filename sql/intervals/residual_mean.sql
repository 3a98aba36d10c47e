-- residual_mean: the standard error of a regression metric that is a weighted mean of a
-- value of each row (mae, mse, mean_error, mape): with x the row's value ({{ value }}, over
-- the prediction score and the target label) on the rows where {{ where }} holds, W their
-- summed weight and m the metric,
--   se² = s² / W,   s² = Σ w·(x − m)² / (W − 1),
-- weights counting as frequencies (a row of weight 2 is two rows); the normal interval.
-- Two passes over the used rows (the mean, then the squares about it: no cancellation
-- when the values are nearly equal). NULL unless W > 1.
--
-- reads:  input({{ by }}, score, label, w)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by(v) }},
       SQRT(SUM(v.w * (v.x - m.mean) * (v.x - m.mean)) / ((MIN(m.total) - 1) * MIN(m.total))) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by }}, w, {{ value }} AS x
    FROM input
    WHERE w IS NOT NULL AND {{ where }}
) AS v
JOIN (
    SELECT {{ by }}, CAST(SUM(w) AS DOUBLE) AS total, SUM(w * x) / SUM(w) AS mean
    FROM (
        SELECT {{ by }}, w, {{ value }} AS x
        FROM input
        WHERE w IS NOT NULL AND {{ where }}
    ) AS row_values
    GROUP BY {{ by }}
    HAVING SUM(w) > 1
) AS m ON {{ same_slice(v, m) }}
GROUP BY {{ by(v) }}
