-- calibration = Σ w·p / Σ w·y: predicted over observed positives; 1 is calibrated on
-- average, above 1 over-predicts. NULL when the slice has no positive.
--
-- reads:  score_hist({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, calibration
SELECT {{ by }},
       SUM((w_pos + w_neg) * score) / CAST(NULLIF(SUM(w_pos), 0) AS DOUBLE) AS calibration
FROM score_hist
GROUP BY {{ by }}
