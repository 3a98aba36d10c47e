-- f1 = 2·TP / (2·TP + FP + FN), the harmonic mean of precision and recall, written so
-- that it stays defined (0) when only one of them is. NULL when TP + FP + FN = 0.
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- params: {{ threshold }} -- DOUBLE, default 0.5
-- output: {{ by }}, f1
SELECT {{ by }}, 2 * tp / CAST(NULLIF(2 * tp + fp + fn, 0) AS DOUBLE) AS f1
FROM confusion
WHERE threshold = {{ threshold }}
