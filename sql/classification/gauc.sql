-- gauc: group AUC, the weighted mean of the per-query AUC
--   GAUC = Σ_u g_u · AUC_u / Σ_u g_u   over queries u that have both classes,
-- with g_u = the query's summed weight (weighting 'impressions', the default: its row
-- count without weights), its positives' weight ('positives') or 1 ('uniform').
-- AUC_u is the query's Mann–Whitney statistic, ties counting ½ (see auc.sql), from one
-- sort of the query's rows: with P, N the query's positive and negative weight and
-- N(<=s), P(<=s) the weight at or below score s (ties included),
--   AUC_u = (P·N + Σ_pos w·N(<=s) − Σ_neg w·P(<=s)) / (2·P·N)
-- since Σ_pos w·N(<=s) − Σ_neg w·P(<=s) = wins − losses and P·N = wins + ties + losses.
-- One-class queries are not sorted: one row of each is kept, to be counted as skipped.
-- gauc_groups counts the queries used, gauc_skipped the one-class queries left out.
--
-- reads:  query_rows({{ by }}, query, score, w_pos, w_neg)
-- params: {{ weighting }} -- 'impressions' | 'positives' | 'uniform'
-- output: {{ by }}, gauc, gauc_groups, gauc_skipped
SELECT {{ by }},
       SUM(group_weight * auc) / NULLIF(SUM(CASE WHEN auc IS NOT NULL THEN group_weight END), 0) AS gauc,
       COUNT(auc) AS gauc_groups,
       COUNT(*) - COUNT(auc) AS gauc_skipped
FROM (
    SELECT {{ by }}, query,
           (MAX(pos) * MAX(neg) + SUM(w_pos * neg_up_to) - SUM(w_neg * pos_up_to))
           / NULLIF(2 * MAX(pos) * MAX(neg), 0) AS auc,
           CASE {{ weighting }}
               WHEN 'impressions' THEN MAX(pos + neg)
               WHEN 'positives' THEN MAX(pos)
               ELSE 1
           END AS group_weight
    FROM (
        SELECT {{ by }}, query, pos, neg, w_pos, w_neg,
               SUM(w_neg) OVER (PARTITION BY {{ by }}, query ORDER BY score
                                RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS neg_up_to,
               SUM(w_pos) OVER (PARTITION BY {{ by }}, query ORDER BY score
                                RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS pos_up_to
        FROM (
            SELECT {{ by }}, query, score, w_pos, w_neg,
                   SUM(w_pos) OVER (PARTITION BY {{ by }}, query) AS pos,
                   SUM(w_neg) OVER (PARTITION BY {{ by }}, query) AS neg,
                   ROW_NUMBER() OVER (PARTITION BY {{ by }}, query) AS nth  -- any one row
            FROM query_rows
        ) AS totals
        WHERE (pos > 0 AND neg > 0) OR nth = 1
    ) AS ranked
    GROUP BY {{ by }}, query
) AS per_query
GROUP BY {{ by }}
