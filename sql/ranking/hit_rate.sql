-- hit_rate: the share of lists with a relevant item (label >= min_relevance) in the top
-- k positions (k NULL: anywhere in the list). Positions by score, descending.
-- Under ties the first relevant item matters: it lies in the first peer group holding
-- one (first_hits.sql), at positions a..e with g rows of which m relevant. The list hits
-- for sure when e <= k and never when a > k; when the group straddles k with
-- s = k − a + 1 of its positions inside, it misses only if all s go to its g − m
-- non-relevant rows, with probability Π_{t < s} (g − m − t)/(g − t) (0 when s > g − m).
-- average = 'macro': that share; 'micro': Σ hits@k / Σ R over lists, hits@k the
-- relevant items in the top k (cutoff_hits.sql) and R the list's relevant judged items
-- (the HR@K of recommender papers). Each form's rows are read only under its own
-- average: an engine drops the other form's steps as unread (DuckDB then computes no
-- hits@k, and no first peer groups for micro).
-- A list without a relevant judged item is skipped and counted (empty = 'skip') or
-- scores 0 (empty = 'zero'); a list without judgments is skipped.
--
-- reads:  first_hits, cutoff_hits, list_floors (one row per list: its relevant and judged items)
-- params: {{ k }}, {{ ties }}, {{ min_relevance }}, {{ empty }}, {{ average }}
-- output: {{ by }}, hit_rate, hit_rate_queries (lists used), hit_rate_skipped (lists left out)
WITH first_relevant AS (
    SELECT {{ by }}, query, a, g, m
    FROM first_hits
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }} AND {{ average }} = 'macro'
),
list_parts AS (
    SELECT {{ by }}, query,
           CASE WHEN a + g - 1 <= COALESCE({{ k }}, a + g - 1) OR {{ k }} - a + 1 > g - m THEN 1 ELSE 0 END AS hit,
           0 AS hits, 0 AS relevant, 0 AS judged
    FROM first_relevant
    WHERE a <= COALESCE({{ k }}, a)
    UNION ALL
    -- a straddling group: 1 − P(its s positions inside k all go to non-relevant rows)
    SELECT {{ by }}, query, 1 - EXP(SUM(LN((g - m - t) / CAST(g - t AS DOUBLE)))), 0, 0, 0
    FROM (
        SELECT {{ by }}, query, g, m, UNNEST(RANGE(0, CAST({{ k }} - a + 1 AS BIGINT))) AS t
        FROM first_relevant
        WHERE a <= {{ k }} AND a + g - 1 > {{ k }} AND {{ k }} - a + 1 <= g - m
    ) AS slots
    GROUP BY {{ by }}, query
    UNION ALL
    SELECT {{ by }}, query, 0, hits, 0, 0
    FROM cutoff_hits
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }} AND k IS NOT DISTINCT FROM {{ k }}
      AND {{ average }} = 'micro'
    UNION ALL
    -- every list, even one without a relevant item or without judgments
    SELECT {{ by }}, query, 0, 0, relevant, judged
    FROM list_floors
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
),
per_list AS (
    SELECT {{ by }}, query, SUM(hit) AS hit, SUM(hits) AS hits, SUM(relevant) AS relevant,
           SUM(relevant) > 0 OR (SUM(judged) > 0 AND {{ empty }} = 'zero') AS used
    FROM list_parts
    GROUP BY {{ by }}, query
)
SELECT {{ by }},
       CASE WHEN {{ average }} = 'micro'
            THEN SUM(CASE WHEN used THEN hits END) / CAST(NULLIF(SUM(CASE WHEN used THEN relevant END), 0) AS DOUBLE)
            ELSE AVG(CASE WHEN used THEN hit END) END AS hit_rate,
       COUNT(CASE WHEN used THEN 1 END) AS hit_rate_queries,
       COUNT(CASE WHEN NOT used THEN 1 END) AS hit_rate_skipped
FROM per_list
GROUP BY {{ by }}
