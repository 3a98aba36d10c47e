-- cg: cumulative gain at k, the mean over lists of
--   CG@k = Σ_{p <= k} gain(rel_p),
-- positions p by score, descending; gain(rel) = 2^rel − 1 ('exponential') or rel
-- ('linear'); k NULL means the whole list.
-- A peer group at positions a..e (see ranked.sql) shares them evenly: each of its g rows
-- earns gain(rel)·(min(e, k) − a + 1)/g, which under ties = 'average' is the exact mean
-- over every order of a tie group.
-- A list without a relevant judged item (label >= min_relevance) is skipped and counted
-- (empty = 'skip') or scores 0 (empty = 'zero'); a list without judgments is skipped.
--
-- reads:  ranked, list_floors (one row per list: its relevant and judged items)
-- params: {{ k }}, {{ gain }}, {{ ties }}, {{ min_relevance }}, {{ empty }}
-- output: {{ by }}, cg, cg_queries (lists used), cg_skipped (lists left out)
WITH list_parts AS (
    SELECT {{ by }}, query,
           CASE WHEN {{ gain }} = 'linear' THEN label ELSE POWER(2, label) - 1 END
           * (LEAST(last_position, COALESCE({{ k }}, last_position)) - first_position + 1)
           / CAST(last_position - first_position + 1 AS DOUBLE) AS cg,
           0 AS relevant, 0 AS judged
    FROM ranked
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
      AND first_position <= COALESCE({{ k }}, first_position)
    UNION ALL
    -- every list, with its relevant and judged items (retrieved or not)
    SELECT {{ by }}, query, 0, relevant, judged
    FROM list_floors
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
),
per_list AS (
    SELECT {{ by }}, query,
           CASE WHEN SUM(relevant) > 0 THEN SUM(cg)
                WHEN SUM(judged) > 0 AND {{ empty }} = 'zero' THEN 0 END AS cg
    FROM list_parts
    GROUP BY {{ by }}, query
)
SELECT {{ by }}, AVG(cg) AS cg, COUNT(cg) AS cg_queries, COUNT(*) - COUNT(cg) AS cg_skipped
FROM per_list
GROUP BY {{ by }}
