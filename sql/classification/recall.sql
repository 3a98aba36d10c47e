-- recall = TP / (TP + FN): the weighted share of positives predicted positive
-- (score >= threshold). NULL when the slice has no positive.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, recall
SELECT {{ by }}, tp / CAST(NULLIF(tp + fn, 0) AS DOUBLE) AS recall
FROM confusion
WHERE threshold = {{ threshold }}
