-- tn: the weighted count of negatives predicted negative (label 0, score < threshold).
-- Without weights it is a row count.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, tn
SELECT {{ by }}, tn
FROM confusion
WHERE threshold = {{ threshold }}
