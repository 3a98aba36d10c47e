-- clustered_confusion_delta: each unit's part of a smooth function f of the confusion
-- counts at {{ threshold }} (confusion_delta's f1, fbeta, balanced_accuracy, mcc;
-- proportion's shares), for clustered.sql. A row in cell c has influence g_c − ḡ, with g
-- the gradient of f in the slice's cells' shares ({{ g_tp }}, ... over tp, fp, tn, fn)
-- and ḡ = Σ_c q_c·g_c, so a unit's part is
--   Σ_c n_kc·(g_c − ḡ) / W,
-- n_kc the unit's weight in cell c (one pass over the rows, then one over the units).
--
-- reads:  input({{ by }}, unit_id, label, score, w)
-- output: {{ by }}, unit_id, part
SELECT {{ by }}, unit_id,
       (unit_tp * (g_tp - g_mean) + unit_fp * (g_fp - g_mean) + unit_tn * (g_tn - g_mean)
        + unit_fn * (g_fn - g_mean)) / CAST(total AS DOUBLE) AS part
FROM (
    SELECT {{ by }}, unit_id, total, unit_tp, unit_fp, unit_tn, unit_fn, g_tp, g_fp, g_tn, g_fn,
           tp * g_tp + fp * g_fp + tn * g_tn + fn * g_fn AS g_mean
    FROM (
        SELECT {{ by }}, unit_id, total, unit_tp, unit_fp, unit_tn, unit_fn, tp, fp, tn, fn,
               {{ g_tp }} AS g_tp, {{ g_fp }} AS g_fp, {{ g_tn }} AS g_tn, {{ g_fn }} AS g_fn
        FROM (
            -- the slice's cells' shares
            SELECT {{ by }}, unit_id, total, unit_tp, unit_fp, unit_tn, unit_fn,
                   SUM(unit_tp) OVER (PARTITION BY {{ by }}) / CAST(total AS DOUBLE) AS tp,
                   SUM(unit_fp) OVER (PARTITION BY {{ by }}) / CAST(total AS DOUBLE) AS fp,
                   SUM(unit_tn) OVER (PARTITION BY {{ by }}) / CAST(total AS DOUBLE) AS tn,
                   SUM(unit_fn) OVER (PARTITION BY {{ by }}) / CAST(total AS DOUBLE) AS fn
            FROM (
                SELECT {{ by }}, unit_id, unit_tp, unit_fp, unit_tn, unit_fn,
                       SUM(unit_tp + unit_fp + unit_tn + unit_fn) OVER (PARTITION BY {{ by }}) AS total
                FROM (
                    -- each unit's weight in each cell
                    SELECT {{ by }}, unit_id,
                           SUM(CASE WHEN label = 1 AND score >= {{ threshold }} THEN w ELSE 0 END) AS unit_tp,
                           SUM(CASE WHEN label = 0 AND score >= {{ threshold }} THEN w ELSE 0 END) AS unit_fp,
                           SUM(CASE WHEN label = 0 AND score < {{ threshold }} THEN w ELSE 0 END) AS unit_tn,
                           SUM(CASE WHEN label = 1 AND score < {{ threshold }} THEN w ELSE 0 END) AS unit_fn
                    FROM input
                    WHERE w IS NOT NULL
                    GROUP BY {{ by }}, unit_id
                ) AS units
            ) AS totalled
            WHERE total > 0
        ) AS shares
    ) AS gradients
) AS centred
