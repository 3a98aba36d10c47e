-- pr_curve: scikit-learn's precision_recall_curve, one row per point, from the highest
-- threshold down: first (threshold +inf, precision 1, recall 0), scikit-learn's final
-- point without a threshold, then at each distinct score t
--   precision = TP(>= t) / (TP(>= t) + FP(>= t)),  recall = TP(>= t) / positives
-- (a threshold always has weight, so precision is defined; recall is NULL for a slice
-- without positives, where scikit-learn sets it to 1 with a warning).
-- With drop_intermediate, a point other than the first and the last threshold is kept
-- only where recall changes into or out of it (scikit-learn's rule: w_pos > 0 here or
-- at the next threshold).
--
-- reads:  curve_thresholds({{ by }}, point, points, score, w_pos, next_w_pos, tp, fp,
--                          positives)
-- params: {{ drop_intermediate }} (TRUE or FALSE)
-- output: {{ by }}, point, threshold, precision, recall
SELECT {{ by }}, 0 AS point, CAST('Infinity' AS DOUBLE) AS threshold,
       CAST(1 AS DOUBLE) AS "precision",
       CASE WHEN positives > 0 THEN CAST(0 AS DOUBLE) END AS recall
FROM curve_thresholds
WHERE point = 1
UNION ALL
SELECT {{ by }}, point, score AS threshold, tp / CAST(tp + fp AS DOUBLE) AS "precision", tp / CAST(NULLIF(positives, 0) AS DOUBLE) AS recall
FROM curve_thresholds
WHERE NOT {{ drop_intermediate }} OR point = 1 OR point = points
   OR w_pos > 0 OR next_w_pos > 0
