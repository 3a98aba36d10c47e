-- fbeta = (1 + β²)·TP / ((1 + β²)·TP + β²·FN + FP): recall weighted β times as much as
-- precision. NULL when TP + FP + FN = 0.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ beta }} -- DOUBLE > 0, default 1
--         {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, fbeta
SELECT {{ by }},
       (1 + {{ beta }} * {{ beta }}) * tp
       / CAST(NULLIF((1 + {{ beta }} * {{ beta }}) * tp + {{ beta }} * {{ beta }} * fn + fp, 0) AS DOUBLE) AS fbeta
FROM confusion
WHERE threshold = {{ threshold }}
