-- precision@k: the share of the top k positions holding a relevant item (label >=
-- min_relevance), P@k = hits@k / k, divided by k even for a list shorter than k.
-- Positions by score, descending. A peer group at positions a..e (see ranked.sql) with
-- g rows shares them evenly: each relevant row counts (min(e, k) − a + 1)/g hits, which
-- under ties = 'average' is the exact mean over every order of a tie group (hits@k from
-- cutoff_hits.sql).
-- average = 'macro': the mean of P@k over lists; 'micro': Σ hits@k / Σ k over lists
-- (the same number: every list divides by k).
-- A list without a relevant judged item is skipped and counted (empty = 'skip') or
-- scores 0 (empty = 'zero'); a list without judgments is skipped.
--
-- reads:  cutoff_hits, list_floors (one row per list: its relevant and judged items)
-- params: {{ k }}, {{ ties }}, {{ min_relevance }}, {{ empty }}, {{ average }}
-- output: {{ by }}, precision, precision_queries (lists used), precision_skipped (lists left out)
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
    SELECT {{ by }}, query,
           CASE WHEN SUM(relevant) > 0 OR (SUM(judged) > 0 AND {{ empty }} = 'zero') THEN SUM(hits) END AS hits
    FROM list_parts
    GROUP BY {{ by }}, query
)
SELECT {{ by }},
       CASE WHEN {{ average }} = 'micro' THEN SUM(hits) / (CAST({{ k }} AS DOUBLE) * COUNT(hits))
            ELSE AVG(hits / CAST({{ k }} AS DOUBLE)) END AS precision,
       COUNT(hits) AS precision_queries, COUNT(*) - COUNT(hits) AS precision_skipped
FROM per_list
GROUP BY {{ by }}
