-- confusion: the weighted confusion counts per slice at every threshold used by the
-- call's threshold metrics. A score >= threshold predicts the positive class. The
-- counts are DOUBLE whatever the type of score_hist's weights.
--
-- reads:  score_hist({{ by }}, score, w_pos, w_neg)
-- params: {{ thresholds }} -- one row per threshold, e.g. (VALUES (0.5)) AS t(threshold)
-- output: {{ by }}, threshold, tp, fp, tn, fn
SELECT {{ by }}, t.threshold,
       CAST(SUM(CASE WHEN score >= t.threshold THEN w_pos ELSE 0 END) AS DOUBLE) AS tp,
       CAST(SUM(CASE WHEN score >= t.threshold THEN w_neg ELSE 0 END) AS DOUBLE) AS fp,
       CAST(SUM(CASE WHEN score < t.threshold THEN w_neg ELSE 0 END) AS DOUBLE) AS tn,
       CAST(SUM(CASE WHEN score < t.threshold THEN w_pos ELSE 0 END) AS DOUBLE) AS fn
FROM score_hist
CROSS JOIN {{ thresholds }}
GROUP BY {{ by }}, t.threshold
