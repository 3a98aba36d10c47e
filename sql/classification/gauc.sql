-- gauc: group AUC, the weighted mean of the per-query AUC
--   GAUC = Σ_u g_u · AUC_u / Σ_u g_u   over queries u that have both classes,
-- with g_u = the query's summed weight (weighting 'impressions', the default: its row
-- count without weights), its positives' weight ('positives') or 1 ('uniform').
-- AUC_u is the query's Mann–Whitney statistic, ties counting ½ (see auc.sql), from one
-- sort of the query's rows: with P, N the query's positive and negative weight, N(<=s)
-- the negative weight at or below score s (ties included, a RANGE frame) and N(=s) the
-- negative weight tied at s, each positive counts the negatives below it and half of
-- those tied with it:
--   AUC_u = Σ_pos w·(N(<=s) − N(=s)/2) / (P·N) = Σ_pos w·((2·N(<=s) − N(=s)) / N) / (2·P),
-- each negative weight divided by N before it meets a positive one, so that no product
-- of weights overflows or underflows.
-- Without weights the same number takes one RANGE frame fewer, as a rank sum: with r
-- the rank of a row's tie group (RANK()) and e its last position (the rows at or below
-- it), the positives' mean ranks sum to R⁺ = Σ_pos (r + e)/2, and
--   AUC_u = (R⁺ − P(P + 1)/2) / (P·N);
-- the other form's windows are then unread, and the engine drops them.
-- Only the rows of two-class queries are sorted; one-class queries are counted.
-- gauc_groups counts the queries used, gauc_skipped the one-class queries left out.
--
-- reads:  query_rows({{ by }}, query, score, w_pos, w_neg)
-- params: {{ weighting }} -- 'impressions' | 'positives' | 'uniform'
--         {{ weighted }}  -- TRUE when rows carry weights (a weight column or a bootstrap's counts)
-- output: {{ by }}, gauc, gauc_groups, gauc_skipped
WITH totals AS (
    SELECT {{ by }}, query, SUM(w_pos) AS pos, SUM(w_neg) AS neg
    FROM query_rows
    GROUP BY {{ by }}, query
),
per_query AS (
    SELECT {{ by }}, query,
           CASE WHEN {{ weighted }}
                THEN SUM(w_pos * ((2 * neg_up_to - neg_tied) / CAST(NULLIF(neg_total, 0) AS DOUBLE))) / CAST((2 * SUM(w_pos)) AS DOUBLE)
                ELSE (SUM(CASE WHEN w_pos > 0 THEN rank_from + rank_to ELSE 0 END) / CAST(2 AS DOUBLE)
                      - SUM(w_pos) * (SUM(w_pos) + 1) / CAST(2 AS DOUBLE)) / CAST((SUM(w_pos) * SUM(w_neg)) AS DOUBLE) END AS auc,
           CASE {{ weighting }}
               WHEN 'impressions' THEN SUM(w_pos + w_neg)
               WHEN 'positives' THEN SUM(w_pos)
               ELSE CAST(1 AS DOUBLE)
           END AS group_weight
    FROM (
        SELECT {{ by }}, query, w_pos, w_neg,
               SUM(w_neg) OVER (PARTITION BY {{ by }}, query ORDER BY score ASC NULLS LAST
                                RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS neg_up_to,
               SUM(w_neg) OVER (PARTITION BY {{ by }}, query ORDER BY score ASC NULLS LAST
                                RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS neg_tied,
               RANK() OVER (PARTITION BY {{ by }}, query ORDER BY score ASC NULLS LAST) AS rank_from,
               COUNT(*) OVER (PARTITION BY {{ by }}, query ORDER BY score ASC NULLS LAST
                              RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS rank_to,
               SUM(w_neg) OVER (PARTITION BY {{ by }}, query ORDER BY score ASC NULLS LAST
                                RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS neg_total
        FROM (
            -- the rows of two-class queries (a join: ClickHouse's correlated EXISTS loses
            -- the rows of a NULL slice, whatever the comparison of their keys)
            SELECT r.* FROM query_rows AS r
            JOIN totals AS t ON {{ same_slice(r, t) }} AND r.query = t.query
            WHERE t.pos > 0 AND t.neg > 0
        ) AS two_class
    ) AS ranked
    GROUP BY {{ by }}, query
),
queries AS (
    -- every query: the two-class ones with their AUC, the one-class ones left out (NULL)
    SELECT {{ by }}, query, auc, group_weight FROM per_query
    UNION ALL
    SELECT {{ by }}, query, NULL, NULL FROM totals WHERE NOT (pos > 0 AND neg > 0)
)
SELECT {{ by }},
       SUM(group_weight * auc) / CAST(NULLIF(SUM(group_weight), 0) AS DOUBLE) AS gauc,
       COUNT(auc) AS gauc_groups,
       COUNT(*) - COUNT(auc) AS gauc_skipped
FROM queries
GROUP BY {{ by }}
