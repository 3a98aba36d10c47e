-- fp: the weighted count of negatives predicted positive (label 0, score >= threshold).
-- Without weights it is a row count.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, fp
SELECT {{ by }}, fp
FROM confusion
WHERE threshold = {{ threshold }}
