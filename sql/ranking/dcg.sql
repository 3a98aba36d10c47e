-- dcg: discounted cumulative gain at k, the mean over lists of
--   DCG@k = Σ_{p <= k} gain(rel_p) / log2(p + 1),
-- positions p by score, descending; gain(rel) = 2^rel − 1 ('exponential') or rel
-- ('linear'); k NULL means the whole list.
-- A peer group at positions a..e (see ranked.sql) shares them evenly: each of its g rows
-- earns gain(rel)·(D(min(e, k)) − D(a − 1))/g, D the running discount of positions.sql.
-- Under ties = 'average' that is the exact mean over every order of a tie group.
-- A list without a relevant judged item (label >= min_relevance) is skipped and counted
-- (empty = 'skip') or scores 0 (empty = 'zero'); a list without judgments is skipped.
--
-- reads:  ranked, positions, list_floors (one row per list: its relevant and judged items)
-- params: {{ k }}, {{ gain }}, {{ ties }}, {{ min_relevance }}, {{ empty }}
-- output: {{ by }}, dcg, dcg_queries (lists used), dcg_skipped (lists left out)
WITH positions_at_k AS (
    -- the running sums of this call's cutoff (positions.sql holds one table per cutoff in use)
    SELECT p, discount_through FROM positions WHERE k = COALESCE({{ k }}, 0)
),
list_parts AS (
    SELECT {{ by }}, query,
           CASE WHEN {{ gain }} = 'linear' THEN label ELSE POWER(2, label) - 1 END
           * (d_end.discount_through - d_start.discount_through)
           / CAST(last_position - first_position + 1 AS DOUBLE) AS dcg,
           0 AS relevant, 0 AS judged
    FROM ranked
    JOIN positions_at_k AS d_start ON d_start.p = first_position - 1
    JOIN positions_at_k AS d_end ON d_end.p = LEAST(last_position, COALESCE({{ k }}, last_position))
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
           CASE WHEN SUM(relevant) > 0 THEN SUM(dcg)
                WHEN SUM(judged) > 0 AND {{ empty }} = 'zero' THEN 0 END AS dcg
    FROM list_parts
    GROUP BY {{ by }}, query
)
SELECT {{ by }}, AVG(dcg) AS dcg, COUNT(dcg) AS dcg_queries, COUNT(*) - COUNT(dcg) AS dcg_skipped
FROM per_list
GROUP BY {{ by }}
