-- histogram_delta: the delta method's standard error of a smooth function f of a few
-- weighted means over the rows (calibration = mean score / mean label), read from the
-- score histogram. With {{ means }} the slice's means (m_*) and u the influence of a
-- row on f (the gradient of f times the row's values less their means, so that u
-- averages 0), given as SQL over score and the means for a positive row
-- ({{ positive }}) and a negative one ({{ negative }}),
--   se² = Σ w·u² / (W·(W − 1)),
-- the standard error of the mean of u over W rows, weights counting as frequencies
-- (as the means over rows, row_mean.sql). Normal interval; NULL unless W > 1 and f and
-- its gradient are defined.
--
-- reads:  score_hist({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by }},
       SQRT(SUM(w_pos * u_pos * u_pos + w_neg * u_neg * u_neg) / CAST(MIN(total) AS DOUBLE)
            / CAST(MIN(total) - 1 AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by(h) }}, h.w_pos, h.w_neg, m.total, {{ positive }} AS u_pos, {{ negative }} AS u_neg
    FROM score_hist AS h
    JOIN (
        SELECT {{ by }}, SUM(w_pos + w_neg) AS total, {{ means }}
        FROM score_hist
        GROUP BY {{ by }}
        HAVING SUM(w_pos + w_neg) > 1
    ) AS m ON {{ same_slice(h, m) }}
) AS influences
GROUP BY {{ by }}
