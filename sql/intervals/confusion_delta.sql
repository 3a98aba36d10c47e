-- confusion_delta: the delta method's standard error of a smooth function f of the
-- confusion counts at the metric's threshold (f1, fbeta, balanced_accuracy, mcc). The
-- cells' shares q = (tp, fp, tn, fn) / W of the slice's weight W are multinomial, so
-- with g = ({{ g_tp }}, ...) the gradient of f in the shares (SQL over the shares tp, fp,
-- tn, fn) and ḡ = Σ_c q_c·g_c,
--   se² = Σ_c q_c·(g_c − ḡ)² / W,
-- which is the binomial p·(1 − p)/n when f is a share (precision, recall, ...). Shares
-- and gradients are of order 1 whatever the weights' size; weights count as frequencies.
-- The normal interval, clipped to the metric's range; NULL where f or its gradient is
-- undefined (an empty class for mcc, nothing predicted and nothing positive for f1).
--
-- reads:  confusion({{ by }}, threshold, tp, fp, tn, fn)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by }},
       SQRT((tp * (g_tp - g_mean) * (g_tp - g_mean) + fp * (g_fp - g_mean) * (g_fp - g_mean)
             + tn * (g_tn - g_mean) * (g_tn - g_mean) + fn * (g_fn - g_mean) * (g_fn - g_mean)) / CAST(total AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by }}, total, tp, fp, tn, fn, g_tp, g_fp, g_tn, g_fn, tp * g_tp + fp * g_fp + tn * g_tn + fn * g_fn AS g_mean
    FROM (
        SELECT {{ by }}, total, tp, fp, tn, fn,
               {{ g_tp }} AS g_tp, {{ g_fp }} AS g_fp, {{ g_tn }} AS g_tn, {{ g_fn }} AS g_fn
        FROM (
            SELECT {{ by }}, total, tp / CAST(total AS DOUBLE) AS tp, fp / CAST(total AS DOUBLE) AS fp,
                   tn / CAST(total AS DOUBLE) AS tn, fn / CAST(total AS DOUBLE) AS fn
            FROM (SELECT {{ by }}, tp, fp, tn, fn, tp + fp + tn + fn AS total FROM confusion WHERE threshold = {{ threshold }})
                 AS counts
            WHERE total > 0
        ) AS shares
    ) AS gradients
) AS centred
