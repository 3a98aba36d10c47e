-- row_mean: the standard error of a metric that is a weighted mean of a value of each row
-- (logloss, brier, score_mean, label_mean): with x the value of a positive
-- ({{ positive }}) or of a negative ({{ negative }}) at its score, W the summed weight and m
-- the metric,
--   se² = s² / W,   s² = Σ w·(x − m)² / (W − 1),
-- weights counting as frequencies (a row of weight 2 is two rows); the normal interval.
-- NULL unless W > 1.
--
-- reads:  score_hist({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by(h) }},
       SQRT(SUM(h.w_pos * POWER({{ positive }} - m.mean, 2) + h.w_neg * POWER({{ negative }} - m.mean, 2))
            / MIN((m.total - 1) * m.total)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM score_hist AS h
JOIN (
    SELECT {{ by }}, SUM(w_pos * {{ positive }} + w_neg * {{ negative }}) / SUM(w_pos + w_neg) AS mean,
           SUM(w_pos + w_neg) AS total
    FROM score_hist
    GROUP BY {{ by }}
    HAVING SUM(w_pos + w_neg) > 1
) AS m ON {{ same_slice(h, m) }}
GROUP BY {{ by(h) }}
