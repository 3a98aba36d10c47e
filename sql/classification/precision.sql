-- precision = TP / (TP + FP): the weighted share of predicted positives
-- (score >= threshold) that are positive. NULL when nothing is predicted positive.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, precision
SELECT {{ by }}, tp / CAST(NULLIF(tp + fp, 0) AS DOUBLE) AS precision
FROM confusion
WHERE threshold = {{ threshold }}
