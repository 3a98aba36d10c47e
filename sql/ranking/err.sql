-- err: expected reciprocal rank at k (Chapelle, Metzler, Zhang & Grinspan, 2009), the
-- mean over lists of
--   ERR@k = Σ_{p <= k} (1/p) · R_p · Π_{i < p} (1 − R_i),   R = (2^min(rel, M) − 1) / 2^M,
-- the cascade model: a user reads down the list and stops at position p, satisfied, with
-- probability R_p. M = max_relevance is the largest grade (4 by default, as in gdeval,
-- the TREC Web track's script); a label above M counts as M. Positions p by score,
-- descending; k NULL means the whole list.
-- Ties: the order within a tie changes ERR through the product, and its exact mean over
-- every order is not computed: ERR takes ties = 'pessimistic' (its default: relevant
-- items last within a tie), 'optimistic' or 'item' (item id descending, trec_eval's
-- order). Under these the rows of a peer group (see ranked.sql) share a label, so an R:
-- a group at positions a..e after rows whose product Π (1 − R) is S adds
--   S · R · Σ_{j = 0 .. min(e, k) − a} (1 − R)^j / (a + j).
-- 1 − R is taken as (2^M − 2^min(rel, M) + 1) / 2^M, so that ln(1 − R) stays finite,
-- and S and (1 − R)^j as exponentials of sums of logarithms.
-- A list without a relevant judged item (label >= min_relevance) is skipped and counted
-- (empty = 'skip') or scores 0 (empty = 'zero'); a list without judgments is skipped.
--
-- reads:  ranked, list_floors (one row per list: its relevant and judged items)
-- params: {{ k }}, {{ max_relevance }}, {{ ties }}, {{ min_relevance }}, {{ empty }}
-- output: {{ by }}, err, err_queries (lists used), err_skipped (lists left out)
WITH peer_groups AS (
    SELECT {{ by }}, query, first_position AS a, LEAST(MIN(last_position), COALESCE({{ k }}, MIN(last_position))) AS e,
           COUNT(*) AS g, MIN(LEAST(label, {{ max_relevance }})) AS grade
    FROM ranked
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
      AND first_position <= COALESCE({{ k }}, first_position)
    GROUP BY {{ by }}, query, first_position
),
stops AS (
    -- each group's R and ln(1 − R)
    SELECT {{ by }}, query, a, e, g,
           (POWER(2, grade) - 1) / POWER(2, {{ max_relevance }}) AS r,
           LN(POWER(2, {{ max_relevance }}) - POWER(2, grade) + 1) - {{ max_relevance }} * LN(2) AS ln_miss
    FROM peer_groups
),
survivals AS (
    -- ln S: the summed ln(1 − R) of the rows ranked above each group
    SELECT {{ by }}, query, a, e, r, ln_miss,
           COALESCE(SUM(g * ln_miss) OVER (PARTITION BY {{ by }}, query ORDER BY a ASC NULLS LAST
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS ln_survive
    FROM stops
),
stop_positions AS (
    -- one row per position a + j of a group with R > 0
    SELECT {{ by }}, query, a, r, ln_miss, ln_survive, UNNEST(RANGE(0, CAST(e - a + 1 AS BIGINT))) AS j
    FROM survivals
    WHERE r > 0
),
list_parts AS (
    SELECT {{ by }}, query, EXP(ln_survive + j * ln_miss) * r / CAST(a + j AS DOUBLE) AS err, 0 AS relevant, 0 AS judged
    FROM stop_positions
    UNION ALL
    -- every list, even one without a positive grade in the top k or without judgments,
    -- with its relevant and judged items (retrieved or not)
    SELECT {{ by }}, query, 0, relevant, judged
    FROM list_floors
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
),
per_list AS (
    SELECT {{ by }}, query,
           CASE WHEN SUM(relevant) > 0 THEN SUM(err)
                WHEN SUM(judged) > 0 AND {{ empty }} = 'zero' THEN 0 END AS err
    FROM list_parts
    GROUP BY {{ by }}, query
)
SELECT {{ by }}, AVG(err) AS err, COUNT(err) AS err_queries, COUNT(*) - COUNT(err) AS err_skipped
FROM per_list
GROUP BY {{ by }}
