-- label_mean = Σ w·y / Σ w: the observed positive rate (click-through rate).
-- NULL on an empty slice (or one whose weights are all 0).
--
-- reads:  score_hist({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, label_mean
SELECT {{ by }},
       SUM(w_pos) / CAST(NULLIF(SUM(w_pos + w_neg), 0) AS DOUBLE) AS label_mean
FROM score_hist
GROUP BY {{ by }}
