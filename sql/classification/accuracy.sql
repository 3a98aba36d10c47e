-- accuracy = (TP + TN) / (TP + FP + TN + FN): the weighted share of rows whose predicted
-- class (score >= threshold) equals the label. NULL on an empty slice.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, accuracy
SELECT {{ by }}, (tp + tn) / CAST(NULLIF(tp + fp + tn + fn, 0) AS DOUBLE) AS accuracy
FROM confusion
WHERE threshold = {{ threshold }}
