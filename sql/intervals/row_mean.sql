-- row_mean: the standard error of a metric that is a weighted mean of a value of each row
-- (logloss, brier, score_mean, label_mean): with x the value of a positive
-- ({{ positive }}) or of a negative ({{ negative }}) at its score, W the summed weight and m
-- the metric,
--   se² = s² / W,   s² = Σ w·(x − m)² / (W − 1),
-- weights counting as frequencies (a row of weight 2 is two rows); the normal interval.
-- Two passes over score_hist (the mean, then the squares about it: no cancellation when
-- the values are nearly equal). NULL unless W > 1.
--
-- reads:  score_hist({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by(v) }},
       SQRT(SUM(v.w_pos * (v.x_pos - m.mean) * (v.x_pos - m.mean) + v.w_neg * (v.x_neg - m.mean) * (v.x_neg - m.mean))
            / CAST(MIN(m.total) AS DOUBLE) / CAST((MIN(m.total) - 1) AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by }}, w_pos, w_neg, {{ positive }} AS x_pos, {{ negative }} AS x_neg
    FROM score_hist
) AS v
JOIN (
    SELECT {{ by }}, CAST(SUM(w_pos + w_neg) AS DOUBLE) AS total,
           SUM(w_pos * x_pos + w_neg * x_neg) / CAST(SUM(w_pos + w_neg) AS DOUBLE) AS mean
    FROM (
        SELECT {{ by }}, w_pos, w_neg, {{ positive }} AS x_pos, {{ negative }} AS x_neg
        FROM score_hist
    ) AS row_values
    GROUP BY {{ by }}
    HAVING SUM(w_pos + w_neg) > 1
) AS m ON {{ same_slice(v, m) }}
GROUP BY {{ by(v) }}
