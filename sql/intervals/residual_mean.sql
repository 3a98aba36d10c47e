-- residual_mean: the standard error of a regression metric that is a weighted mean of a
-- value of each row (mae, mse, mean_error, mape), or a function of one (rmse): with x
-- the row's value ({{ value }}, over the prediction score and the target label) on the
-- rows where {{ where }} holds, W their summed weight and m their weighted mean,
--   se(m)² = s² / W,   s² = Σ w·(x − m)² / (W − 1),
-- weights counting as frequencies (a row of weight 2 is two rows); the metric f(m) has
-- se = se(m)·|f'(m)| (the delta method; f'(m) = {{ slope }}, 1 for a mean itself, and
-- 1 / (2·√m) for rmse = √mse); the normal interval. W, m and Σ w·(x − m)² per slice are
-- the step below (residual_spread.sql over the rows; merged_residual_spread.sql from
-- states). NULL unless W > 1 (and where f'(m) is undefined).
--
-- reads:  the spread ({{ by }}, total, mean, spread)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by }}, SQRT(spread / CAST((total - 1) * total AS DOUBLE)) * ({{ slope }}) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
{{ spread }}
) AS of_mean
WHERE total > 1
