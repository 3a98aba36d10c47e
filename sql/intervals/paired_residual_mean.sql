-- paired_residual_mean: the standard error of the difference of two scores' regression
-- metrics over the same rows (mae, mse, mean_error, mape, and rmse = √mse by the delta
-- method; sm.compare with scores=). With x₁ and x₂ each row's value ({{ value }}) under
-- score 1 and score 2 on the rows where {{ where }} holds, m₁ and m₂ their weighted
-- means and f'(m) the metric's slope in its mean ({{ slope }}: 1 for a mean itself,
-- 1 / (2·√m) for rmse), each row's influence on the difference is
--   d = f'(m₂)·(x₂ − m₂) − f'(m₁)·(x₁ − m₁),   se² = Σ w·d² / (W·(W − 1)),
-- weights counting as frequencies: for a mean itself, the mean over rows' se of the
-- rows' differences x₂ − x₁ (paired_row_mean.sql), far narrower than the two metrics'
-- own intervals when the scores agree on most rows. Two passes over the rows (the
-- means, then the influences about them); the spread is given on the rows of the
-- second score ({{ pair }} = 2); normal interval; NULL unless W > 1 (and where a slope
-- is undefined).
--
-- reads:  paired_rows({{ by }}, label, score_1, score_2, w)
-- output: {{ by }}, {{ pair }}, se, df (NULL: the normal interval)
SELECT {{ by }}, 2 AS {{ pair }},
       SQRT(SUM(w * d * d) / CAST(MIN(total) AS DOUBLE) / CAST(MIN(total) - 1 AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    -- the second score's influence, its slope at mean = m₂, less the first's
    SELECT {{ by }}, w, total, ({{ slope }}) * (x_2 - mean) - u_1 AS d
    FROM (
        SELECT {{ by }}, w, total, x_2, mean_2 AS mean, u_1
        FROM (
            -- the first score's influence, its slope at mean = m₁ (the slope is SQL over a column mean)
            SELECT {{ by }}, w, total, x_2, mean_2, ({{ slope }}) * (x_1 - mean) AS u_1
            FROM (
                -- each slice's means, for the influences about them (two passes)
                SELECT {{ by }}, w, x_1, x_2, SUM(w) OVER (PARTITION BY {{ by }}) AS total,
                       SUM(w * x_1) OVER (PARTITION BY {{ by }}) / CAST(SUM(w) OVER (PARTITION BY {{ by }}) AS DOUBLE) AS mean,
                       SUM(w * x_2) OVER (PARTITION BY {{ by }}) / CAST(SUM(w) OVER (PARTITION BY {{ by }}) AS DOUBLE) AS mean_2
                FROM (
                    SELECT {{ by }}, w, x_1, {{ value }} AS x_2
                    FROM (
                        SELECT {{ by }}, w, label, x_1, score_2 AS score
                        FROM (
                            SELECT {{ by }}, w, label, score_2, {{ value }} AS x_1
                            FROM (SELECT {{ by }}, w, label, score_1 AS score, score_2 FROM paired_rows WHERE w IS NOT NULL) AS first
                            WHERE {{ where }}
                        ) AS valued
                    ) AS second
                ) AS row_values
            ) AS centred
        ) AS first_influence
    ) AS renamed
) AS influences
GROUP BY {{ by }}
HAVING MIN(total) > 1
