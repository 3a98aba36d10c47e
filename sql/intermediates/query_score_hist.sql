-- query_score_hist: like score_hist, one row per slice, query and distinct score.
-- Shared by the metrics that average over queries (gauc).
--
-- reads:  base({{ by }}, query, score, label, excluded, n, w)
-- output: {{ by }}, query, score, w_pos, w_neg
SELECT {{ by }}, query, score,
       SUM(CASE WHEN label = 1 THEN w ELSE 0 END) AS w_pos,
       SUM(CASE WHEN label = 0 THEN w ELSE 0 END) AS w_neg
FROM base
WHERE NOT excluded
GROUP BY {{ by }}, query, score
