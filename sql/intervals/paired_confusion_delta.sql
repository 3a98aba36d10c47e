-- paired_confusion_delta: the delta method's standard error of the difference of a
-- smooth function f of the confusion counts (f1, fbeta, balanced_accuracy, mcc and the
-- shares: accuracy, precision, recall, specificity) under two scores of the same rows
-- (sm.compare with scores=). Each row falls in a cell under each score (its label, and
-- score_k >= {{ threshold }} predicting positive): the joint cells j (label, first
-- prediction, second prediction) have multinomial shares q_j of the slice's weight W,
-- and each score's confusion shares are sums of them. With g_k the gradient of f in
-- score k's shares (confusion_delta.sql's: {{ g_tp }}, ... over tp, fp, tn, fn) and
--   h_j = g_2(j's cell under score 2) − g_1(j's cell under score 1),  h̄ = Σ_j q_j·h_j,
--   se² = Σ_j q_j·(h_j − h̄)² / W,
-- which is var f_1 + var f_2 − 2·cov(f_1, f_2): the rows both scores put in the same
-- cells cancel (for accuracy, only the rows the scores disagree on count: McNemar's).
-- Weights count as frequencies; the spread is given on the rows of the second score
-- ({{ pair }} = 2); NULL where f or its gradient is undefined under either score.
--
-- reads:  paired_rows({{ by }}, label, score_1, score_2, w)
-- output: {{ by }}, {{ pair }}, se, df (NULL: the normal interval)
SELECT {{ by }}, 2 AS {{ pair }},
       CASE WHEN COUNT(h) = COUNT(*)
            THEN SQRT(SUM(q * (h - h_mean) * (h - h_mean)) / CAST(MIN(total) AS DOUBLE)) END AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by }}, total, q, h, SUM(q * h) OVER (PARTITION BY {{ by }}) AS h_mean
    FROM (
        -- each joint cell's difference of the two scores' gradients at its cells
        SELECT {{ by }}, total, q,
               CASE WHEN predicted_2 = 1 AND positive = 1 THEN g2_tp WHEN predicted_2 = 1 THEN g2_fp
                    WHEN positive = 1 THEN g2_fn ELSE g2_tn END
               - CASE WHEN predicted_1 = 1 AND positive = 1 THEN g1_tp WHEN predicted_1 = 1 THEN g1_fp
                      WHEN positive = 1 THEN g1_fn ELSE g1_tn END AS h
        FROM (
            -- the gradient at the second score's shares
            SELECT {{ by }}, total, q, positive, predicted_1, predicted_2, g1_tp, g1_fp, g1_tn, g1_fn,
                   {{ g_tp }} AS g2_tp, {{ g_fp }} AS g2_fp, {{ g_tn }} AS g2_tn, {{ g_fn }} AS g2_fn
            FROM (
                SELECT {{ by }}, total, q, positive, predicted_1, predicted_2, g1_tp, g1_fp, g1_tn, g1_fn,
                       tp_2 AS tp, fp_2 AS fp, tn_2 AS tn, fn_2 AS fn
                FROM (
                    -- the gradient at the first score's shares
                    SELECT {{ by }}, total, q, positive, predicted_1, predicted_2, tp_2, fp_2, tn_2, fn_2,
                           {{ g_tp }} AS g1_tp, {{ g_fp }} AS g1_fp, {{ g_tn }} AS g1_tn, {{ g_fn }} AS g1_fn
                    FROM (
                        -- each score's confusion shares, sums of the joint cells' shares
                        SELECT {{ by }}, total, q, positive, predicted_1, predicted_2,
                               SUM(CASE WHEN positive = 1 AND predicted_1 = 1 THEN q ELSE 0 END)
                                   OVER (PARTITION BY {{ by }}) AS tp,
                               SUM(CASE WHEN positive = 0 AND predicted_1 = 1 THEN q ELSE 0 END)
                                   OVER (PARTITION BY {{ by }}) AS fp,
                               SUM(CASE WHEN positive = 0 AND predicted_1 = 0 THEN q ELSE 0 END)
                                   OVER (PARTITION BY {{ by }}) AS tn,
                               SUM(CASE WHEN positive = 1 AND predicted_1 = 0 THEN q ELSE 0 END)
                                   OVER (PARTITION BY {{ by }}) AS fn,
                               SUM(CASE WHEN positive = 1 AND predicted_2 = 1 THEN q ELSE 0 END)
                                   OVER (PARTITION BY {{ by }}) AS tp_2,
                               SUM(CASE WHEN positive = 0 AND predicted_2 = 1 THEN q ELSE 0 END)
                                   OVER (PARTITION BY {{ by }}) AS fp_2,
                               SUM(CASE WHEN positive = 0 AND predicted_2 = 0 THEN q ELSE 0 END)
                                   OVER (PARTITION BY {{ by }}) AS tn_2,
                               SUM(CASE WHEN positive = 1 AND predicted_2 = 0 THEN q ELSE 0 END)
                                   OVER (PARTITION BY {{ by }}) AS fn_2
                        FROM (
                            SELECT {{ by }}, positive, predicted_1, predicted_2, total,
                                   n / CAST(NULLIF(total, 0) AS DOUBLE) AS q
                            FROM (
                                SELECT {{ by }}, positive, predicted_1, predicted_2, n,
                                       SUM(n) OVER (PARTITION BY {{ by }}) AS total
                                FROM (
                                    -- the joint cells' weights
                                    SELECT {{ by }}, positive, predicted_1, predicted_2, SUM(w) AS n
                                    FROM (
                                        SELECT {{ by }}, w, CASE WHEN label = 1 THEN 1 ELSE 0 END AS positive,
                                               CASE WHEN score_1 >= {{ threshold }} THEN 1 ELSE 0 END AS predicted_1,
                                               CASE WHEN score_2 >= {{ threshold }} THEN 1 ELSE 0 END AS predicted_2
                                        FROM paired_rows
                                        WHERE w IS NOT NULL
                                    ) AS used
                                    GROUP BY {{ by }}, positive, predicted_1, predicted_2
                                ) AS joint
                            ) AS totalled
                        ) AS cells
                    ) AS shares
                ) AS first
            ) AS second
        ) AS gradients
    ) AS differences
) AS centred
GROUP BY {{ by }}
HAVING MIN(total) > 0
