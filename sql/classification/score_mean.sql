-- score_mean = Σ w·p / Σ w: the mean predicted score.
-- NULL on an empty slice (or one whose weights are all 0).
--
-- reads:  score_hist({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, score_mean
SELECT {{ by }},
       SUM((w_pos + w_neg) * score) / CAST(NULLIF(SUM(w_pos + w_neg), 0) AS DOUBLE) AS score_mean
FROM score_hist
GROUP BY {{ by }}
