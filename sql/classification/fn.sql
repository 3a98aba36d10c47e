-- fn: the weighted count of positives predicted negative (label 1, score < threshold).
-- Without weights it is a row count.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, fn
SELECT {{ by }}, fn
FROM confusion
WHERE threshold = {{ threshold }}
