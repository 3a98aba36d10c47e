-- specificity = TN / (TN + FP): the weighted share of negatives predicted negative
-- (score < threshold). NULL when the slice has no negative.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, specificity
SELECT {{ by }}, tn / CAST(NULLIF(tn + fp, 0) AS DOUBLE) AS specificity
FROM confusion
WHERE threshold = {{ threshold }}
