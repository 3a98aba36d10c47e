-- confusion: the weighted confusion counts per slice at every threshold used by the
-- call's threshold metrics. A score >= threshold predicts the positive class.
--
-- reads:  score_hist({{ by }}, score, w_pos, w_neg)
-- params: {{ thresholds }} -- one row per threshold, e.g. (VALUES (0.5)) AS t(threshold)
-- output: {{ by }}, threshold, tp, fp, tn, fn
SELECT {{ by }}, t.threshold,
       SUM(CASE WHEN score >= t.threshold THEN w_pos ELSE 0 END) AS tp,
       SUM(CASE WHEN score >= t.threshold THEN w_neg ELSE 0 END) AS fp,
       SUM(CASE WHEN score < t.threshold THEN w_neg ELSE 0 END) AS tn,
       SUM(CASE WHEN score < t.threshold THEN w_pos ELSE 0 END) AS fn
FROM score_hist
CROSS JOIN {{ thresholds }}
GROUP BY {{ by }}, t.threshold
