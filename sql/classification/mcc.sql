-- mcc = (TP·TN − FP·FN) / sqrt((TP + FP)·(TP + FN)·(TN + FP)·(TN + FN)), the Matthews
-- correlation coefficient. NULL when any factor is 0 (constant prediction or label).
-- Each count is divided by their total first (the value is the same), so that no
-- product of weights overflows or underflows.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, mcc
SELECT {{ by }},
       (tp * tn - fp * fn) / CAST(NULLIF(SQRT((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)), 0) AS DOUBLE) AS mcc
FROM (
    SELECT {{ by }}, tp / CAST(NULLIF(total, 0) AS DOUBLE) AS tp, fp / CAST(NULLIF(total, 0) AS DOUBLE) AS fp,
           tn / CAST(NULLIF(total, 0) AS DOUBLE) AS tn, fn / CAST(NULLIF(total, 0) AS DOUBLE) AS fn
    FROM (SELECT {{ by }}, tp, fp, tn, fn, tp + fp + tn + fn AS total FROM confusion WHERE threshold = {{ threshold }})
         AS counts
) AS shares
