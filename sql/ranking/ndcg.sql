-- ndcg: normalized discounted cumulative gain at k, the mean over lists of
--   NDCG@k = DCG@k / IDCG@k,   DCG@k = Σ_{p <= k} gain(rel_p) / log2(p + 1),
-- positions p by score, descending; IDCG@k is the DCG@k of the list's judged items in
-- the ideal order (relevance descending). gain(rel) = 2^rel − 1 ('exponential') or rel
-- ('linear'); k NULL means the whole list.
-- A peer group at positions a..e (see ranked.sql) shares them evenly: each of its g rows
-- earns gain(rel)·(D(min(e, k)) − D(a − 1))/g, D the running discount of positions.sql.
-- Under ties = 'average' that is the exact mean over every order of a tie group.
-- A list without a relevant judged item (label >= min_relevance) is skipped and counted
-- (empty = 'skip') or scores 0 (empty = 'zero'); a list without judgments is skipped.
--
-- reads:  ranked, judged, positions, list_floors (one row per list: its relevant and judged items)
-- params: {{ k }}, {{ gain }}, {{ ties }}, {{ min_relevance }}, {{ empty }}
-- output: {{ by }}, ndcg, ndcg_queries (lists used), ndcg_skipped (lists left out)
WITH positions_at_k AS (
    -- the running sums of this call's cutoff (positions.sql holds one table per cutoff in use)
    SELECT p, discount_through FROM positions WHERE k = COALESCE({{ k }}, 0)
),
ideal AS (
    SELECT {{ by }}, query, label, n,
           SUM(n) OVER (PARTITION BY {{ by }}, query ORDER BY label DESC NULLS LAST
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS last_position
    FROM judged
),
list_parts AS (
    SELECT {{ by }}, query,
           CASE WHEN {{ gain }} = 'linear' THEN label ELSE POWER(2, label) - 1 END
           * (d_end.discount_through - d_start.discount_through)
           / CAST(last_position - first_position + 1 AS DOUBLE) AS dcg,
           0 AS idcg, 0 AS relevant, 0 AS judged
    FROM ranked
    JOIN positions_at_k AS d_start ON d_start.p = first_position - 1
    JOIN positions_at_k AS d_end ON d_end.p = LEAST(last_position, COALESCE({{ k }}, last_position))
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
      AND first_position <= COALESCE({{ k }}, first_position)
    UNION ALL
    -- the ideal order: the n judged items of a label fill positions last_position − n + 1 ..
    -- (label 0 earns nothing: judged.sql leaves it out)
    SELECT {{ by }}, query, 0,
           CASE WHEN {{ gain }} = 'linear' THEN label ELSE POWER(2, label) - 1 END
           * (d_end.discount_through - d_start.discount_through),
           0, 0
    FROM ideal
    JOIN positions_at_k AS d_start ON d_start.p = LEAST(last_position - n, COALESCE({{ k }}, last_position))
    JOIN positions_at_k AS d_end ON d_end.p = LEAST(last_position, COALESCE({{ k }}, last_position))
    UNION ALL
    -- every list, with its relevant and judged items (retrieved or not)
    SELECT {{ by }}, query, 0, 0, relevant, judged
    FROM list_floors
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
),
per_list AS (
    SELECT {{ by }}, query,
           CASE WHEN SUM(relevant) > 0 THEN SUM(dcg) / CAST(SUM(idcg) AS DOUBLE)
                WHEN SUM(judged) > 0 AND {{ empty }} = 'zero' THEN 0 END AS ndcg
    FROM list_parts
    GROUP BY {{ by }}, query
)
SELECT {{ by }}, AVG(ndcg) AS ndcg, COUNT(ndcg) AS ndcg_queries, COUNT(*) - COUNT(ndcg) AS ndcg_skipped
FROM per_list
GROUP BY {{ by }}
