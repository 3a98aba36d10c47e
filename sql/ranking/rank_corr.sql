-- rank_corr: rank correlation of score and label within each list, averaged over lists:
--   RC = Σ_{pairs u<v} (1 + sgn((s_u − s_v)·(l_u − l_v))) / 2  /  (n(n − 1)/2),
-- so a pair ordered by score as by label earns 1, a pair tied in score or in label ½,
-- a reversed pair 0 (RC = (1 + Kendall's τ_a)/2). No tie policy applies: a tied pair's
-- ½ is already the mean over both orders.
-- Pairs with different labels are counted per pair of label levels (hi > lo) like an
-- AUC: with the rows of both levels sorted by score and N_lo(<= s), N_hi(<= s) the rows
-- at or below s, the pairs won, ties counting ½, are
--   (N_hi·N_lo + Σ_hi N_lo(<= s) − Σ_lo N_hi(<= s)) / 2;
-- pairs within one level add ½ each. Counts are multiplied as DOUBLE: pair counts of a
-- list of 3·10^9 rows overflow BIGINT (an error under Spark's ANSI mode).
-- A list with fewer than 2 rows is skipped; a list without a relevant judged item
-- (label >= min_relevance) is skipped and counted (empty = 'skip') or scores 0
-- (empty = 'zero'); a list without judgments is skipped.
--
-- reads:  input({{ by }}, query, score, label, w), ideal_rows({{ by }}, query, label)  -- the judged items
-- params: {{ min_relevance }}, {{ empty }}
-- output: {{ by }}, rank_corr, rank_corr_queries (lists used), rank_corr_skipped (lists left out)
WITH cells AS (
    SELECT {{ by }}, query, label, score, COUNT(*) AS n
    FROM input
    WHERE w IS NOT NULL
    GROUP BY {{ by }}, query, label, score
),
levels AS (
    SELECT {{ by }}, query, label, SUM(n) AS n
    FROM cells
    GROUP BY {{ by }}, query, label
),
level_pairs AS (
    -- each cell against every other label level of its list
    SELECT {{ by(c) }}, c.query, c.score,
           GREATEST(c.label, l.label) AS hi, LEAST(c.label, l.label) AS lo,
           CASE WHEN c.label > l.label THEN c.n ELSE 0 END AS n_hi,
           CASE WHEN c.label < l.label THEN c.n ELSE 0 END AS n_lo
    FROM cells AS c
    JOIN levels AS l ON {{ same_slice(c, l) }} AND c.query = l.query AND c.label <> l.label
),
won AS (
    SELECT {{ by }}, query,
           (CAST(SUM(n_hi) AS DOUBLE) * SUM(n_lo) + SUM(CAST(n_hi AS DOUBLE) * lo_through)
            - SUM(CAST(n_lo AS DOUBLE) * hi_through)) / CAST(2 AS DOUBLE) AS won
    FROM (
        SELECT {{ by }}, query, hi, lo, n_hi, n_lo,
               SUM(n_lo) OVER (PARTITION BY {{ by }}, query, hi, lo ORDER BY score ASC NULLS LAST
                               RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS lo_through,
               SUM(n_hi) OVER (PARTITION BY {{ by }}, query, hi, lo ORDER BY score ASC NULLS LAST
                               RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS hi_through
        FROM level_pairs
    ) AS sorted
    GROUP BY {{ by }}, query, hi, lo
),
list_parts AS (
    SELECT {{ by }}, query, CAST(n AS DOUBLE) * (n - 1) / CAST(4 AS DOUBLE) AS won, n AS n, 0 AS relevant, 0 AS judged
    FROM levels
    UNION ALL
    SELECT {{ by }}, query, won, 0 AS n, 0 AS relevant, 0 AS judged
    FROM won
    UNION ALL
    -- every list's relevant and judged items (for a run: retrieved or not)
    SELECT {{ by }}, query, 0 AS won, 0 AS n, SUM(CASE WHEN label >= {{ min_relevance }} THEN 1 ELSE 0 END) AS relevant,
           COUNT(*) AS judged
    FROM ideal_rows
    GROUP BY {{ by }}, query
),
per_list AS (
    SELECT {{ by }}, query,
           CASE WHEN SUM(n) < 2 THEN NULL
                WHEN SUM(relevant) > 0 THEN 2 * SUM(won) / CAST(SUM(n) * (SUM(n) - 1) AS DOUBLE)
                WHEN SUM(judged) > 0 AND {{ empty }} = 'zero' THEN 0 END AS rc
    FROM list_parts
    GROUP BY {{ by }}, query
)
SELECT {{ by }}, AVG(rc) AS rank_corr, COUNT(rc) AS rank_corr_queries, COUNT(*) - COUNT(rc) AS rank_corr_skipped
FROM per_list
GROUP BY {{ by }}
