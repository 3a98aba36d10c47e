-- roc_curve: scikit-learn's roc_curve, one row per point, from the highest threshold
-- down: first (threshold +inf, fpr 0, tpr 0), then at each distinct score t
--   fpr = FP(>= t) / negatives,  tpr = TP(>= t) / positives
-- (NULL where the slice has no negatives, resp. no positives: scikit-learn's nan).
-- With drop_intermediate, a point other than the first and the last threshold is kept
-- only where the curve turns: its own step (w_pos, w_neg) differs from the next one's
-- (scikit-learn's rule "second difference of fps or tps is not 0").
--
-- reads:  curve_thresholds({{ by }}, point, points, score, w_pos, w_neg, next_w_pos,
--                          next_w_neg, tp, fp, positives, negatives)
-- params: {{ drop_intermediate }} (TRUE or FALSE)
-- output: {{ by }}, point, threshold, fpr, tpr
SELECT {{ by }}, 0 AS point, CAST('Infinity' AS DOUBLE) AS threshold,
       CASE WHEN negatives > 0 THEN CAST(0 AS DOUBLE) END AS fpr,
       CASE WHEN positives > 0 THEN CAST(0 AS DOUBLE) END AS tpr
FROM curve_thresholds
WHERE point = 1
UNION ALL
SELECT {{ by }}, point, score AS threshold, fp / CAST(NULLIF(negatives, 0) AS DOUBLE) AS fpr, tp / CAST(NULLIF(positives, 0) AS DOUBLE) AS tpr
FROM curve_thresholds
WHERE NOT {{ drop_intermediate }} OR point = 1 OR point = points
   OR w_pos <> next_w_pos OR w_neg <> next_w_neg
