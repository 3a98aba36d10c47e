-- recall@k: the share of a list's relevant judged items (label >= min_relevance) found in
-- the top k positions, R@k = hits@k / R, R counting relevant judged items retrieved or not.
-- Positions by score, descending. A peer group at positions a..e (see ranked.sql) with
-- g rows shares them evenly: each relevant row counts (min(e, k) − a + 1)/g hits, which
-- under ties = 'average' is the exact mean over every order of a tie group (hits@k from
-- cutoff_hits.sql).
-- average = 'macro': the mean of R@k over lists; 'micro': Σ hits@k / Σ R over lists.
-- A list without a relevant judged item is skipped and counted (empty = 'skip') or
-- scores 0 (empty = 'zero'); a list without judgments is skipped.
--
-- reads:  cutoff_hits, list_floors (one row per list: its relevant and judged items)
-- params: {{ k }}, {{ ties }}, {{ min_relevance }}, {{ empty }}, {{ average }}
-- output: {{ by }}, recall, recall_queries (lists used), recall_skipped (lists left out)
WITH list_parts AS (
    SELECT {{ by }}, query, hits, 0 AS relevant, 0 AS judged
    FROM cutoff_hits
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }} AND k = {{ k }}
    UNION ALL
    -- every list, even one without judgments
    SELECT {{ by }}, query, 0, relevant, judged
    FROM list_floors
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
),
per_list AS (
    SELECT {{ by }}, query, SUM(hits) AS hits, SUM(relevant) AS relevant,
           SUM(relevant) > 0 OR (SUM(judged) > 0 AND {{ empty }} = 'zero') AS used
    FROM list_parts
    GROUP BY {{ by }}, query
)
SELECT {{ by }},
       CASE WHEN {{ average }} = 'micro'
            THEN SUM(CASE WHEN used THEN hits END) / CAST(NULLIF(SUM(CASE WHEN used THEN relevant END), 0) AS DOUBLE)
            ELSE AVG(CASE WHEN used THEN COALESCE(hits / CAST(NULLIF(relevant, 0) AS DOUBLE), 0) END) END AS recall,
       COUNT(CASE WHEN used THEN 1 END) AS recall_queries, COUNT(CASE WHEN NOT used THEN 1 END) AS recall_skipped
FROM per_list
GROUP BY {{ by }}
