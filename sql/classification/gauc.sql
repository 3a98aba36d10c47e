-- gauc: group AUC, the weighted mean of the per-query AUC
--   GAUC = Σ_u g_u · AUC_u / Σ_u g_u   over queries u that have both classes,
-- with g_u = the query's summed weight (weighting 'impressions', the default: its row
-- count without weights), its positives' weight ('positives') or 1 ('uniform').
-- AUC_u is the Mann–Whitney statistic of the query, ties counting ½ (see auc.sql).
-- gauc_groups counts the queries used, gauc_skipped the one-class queries left out.
--
-- reads:  query_score_hist({{ by }}, query, score, w_pos, w_neg)
-- params: {{ weighting }} -- 'impressions' | 'positives' | 'uniform'
-- output: {{ by }}, gauc, gauc_groups, gauc_skipped
SELECT {{ by }},
       SUM(group_weight * auc) / NULLIF(SUM(CASE WHEN auc IS NOT NULL THEN group_weight END), 0) AS gauc,
       COUNT(auc) AS gauc_groups,
       COUNT(*) - COUNT(auc) AS gauc_skipped
FROM (
    SELECT {{ by }}, query,
           SUM(w_pos * (neg_below + w_neg / 2)) / NULLIF(SUM(w_pos) * SUM(w_neg), 0) AS auc,
           CASE {{ weighting }}
               WHEN 'impressions' THEN SUM(w_pos + w_neg)
               WHEN 'positives' THEN SUM(w_pos)
               ELSE 1
           END AS group_weight
    FROM (
        SELECT {{ by }}, query, w_pos, w_neg,
               COALESCE(SUM(w_neg) OVER (
                   PARTITION BY {{ by }}, query ORDER BY score
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS neg_below
        FROM query_score_hist
    ) AS ranked
    GROUP BY {{ by }}, query
) AS per_query
GROUP BY {{ by }}
