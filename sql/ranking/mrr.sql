-- mrr: mean reciprocal rank at k, the mean over lists of RR@k = 1/p for the first
-- relevant item (label >= min_relevance) at position p <= k, else 0 (k NULL: no cutoff).
-- Positions by score, descending. Under ties the first relevant item lies in the first
-- peer group holding one (first_hits.sql), at positions a.. with g rows of which m
-- relevant. With J the non-relevant rows of the group ranked before its first relevant
-- one, P(J >= j) = Π_{t < j} (g − m − t)/(g − t) and P(J = j) = P(J >= j)·m/(g − j), so
--   E[RR@k] = Σ_{j = 0 .. g − m, a + j <= k} P(J = j) / (a + j),
-- the exact mean over every order of a tie group under ties = 'average'.
-- A list without a relevant judged item is skipped and counted (empty = 'skip') or
-- scores 0 (empty = 'zero'); a list without judgments is skipped.
--
-- reads:  first_hits, list_floors (one row per list: its relevant and judged items)
-- params: {{ k }}, {{ ties }}, {{ min_relevance }}, {{ empty }}
-- output: {{ by }}, mrr, mrr_queries (lists used), mrr_skipped (lists left out)
WITH offsets AS (
    -- one row per possible j = 0 .. g − m, with P(J >= j) as a running product
    SELECT {{ by }}, query, a, g, m, j,
           EXP(COALESCE(SUM(CASE WHEN j < g - m THEN LN((g - m - j) / CAST(g - j AS DOUBLE)) ELSE 0 END)
                        OVER (PARTITION BY {{ by }}, query ORDER BY j ASC NULLS LAST
                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS at_least_j
    FROM (
        SELECT {{ by }}, query, a, g, m, UNNEST(RANGE(0, CAST(g - m + 1 AS BIGINT))) AS j
        FROM first_hits
        WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }} AND a <= COALESCE({{ k }}, a)
    ) AS expanded
),
list_parts AS (
    SELECT {{ by }}, query, at_least_j * m / (CAST(g - j AS DOUBLE) * (a + j)) AS rr, 0 AS relevant, 0 AS judged
    FROM offsets
    WHERE a + j <= COALESCE({{ k }}, a + j)
    UNION ALL
    -- every list, even one without a relevant item in the top k or without judgments
    SELECT {{ by }}, query, 0, relevant, judged
    FROM list_floors
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
),
per_list AS (
    SELECT {{ by }}, query,
           CASE WHEN SUM(relevant) > 0 OR (SUM(judged) > 0 AND {{ empty }} = 'zero') THEN SUM(rr) END AS rr
    FROM list_parts
    GROUP BY {{ by }}, query
)
SELECT {{ by }}, AVG(rr) AS mrr, COUNT(rr) AS mrr_queries, COUNT(*) - COUNT(rr) AS mrr_skipped
FROM per_list
GROUP BY {{ by }}
