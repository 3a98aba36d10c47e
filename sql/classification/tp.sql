-- tp: the weighted count of positives predicted positive (label 1, score >= threshold).
-- Without weights it is a row count.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, tp
SELECT {{ by }}, tp
FROM confusion
WHERE threshold = {{ threshold }}
