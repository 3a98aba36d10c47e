-- mcc = (TP·TN − FP·FN) / sqrt((TP + FP)·(TP + FN)·(TN + FP)·(TN + FN)), the Matthews
-- correlation coefficient. NULL when any factor is 0 (constant prediction or label).
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, mcc
SELECT {{ by }},
       (tp * tn - fp * fn) / CAST(NULLIF(SQRT((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)), 0) AS DOUBLE) AS mcc
FROM confusion
WHERE threshold = {{ threshold }}
