-- map: mean average precision at k, the mean over lists of
--   AP@k = (1/R) Σ_{p <= k, item p relevant} P@p,   P@p = (relevant items in the top p)/p,
-- R the list's relevant judged items (label >= min_relevance), retrieved or not; k NULL
-- means the whole list. Positions by score, descending.
-- A peer group at positions a..e (see ranked.sql) with g rows, m of them relevant and
-- r relevant items ranked above it: a relevant row of the group is at each of its
-- positions p with probability 1/g, with r + 1 + (p − a)(m − 1)/(g − 1) relevant items
-- expected in the top p, so it adds
--   (1/g)·Σ_{p = a .. min(e, k)} (r + 1 + (p − a)(m − 1)/(g − 1)) / p
--   = (1/g)·((r + 1)·S + (m − 1)/(g − 1)·(c − a·S)),  S = H(min(e, k)) − H(a − 1),
-- c = min(e, k) − a + 1 and H the running sum of 1/p (positions.sql); the fraction is 0
-- when g = 1. Under ties = 'average' that is the exact mean over every order of a tie group.
-- A list without a relevant judged item is skipped and counted (empty = 'skip') or
-- scores 0 (empty = 'zero'); a list without judgments is skipped.
--
-- r is counted over the list's relevant rows alone, ordered by their groups' first
-- positions: the RANK of a relevant row among them, less one (ranked.sql computes no
-- running count over every row: a window over the few relevant rows is far cheaper).
--
-- reads:  ranked, positions, list_floors (one row per list: its relevant and judged items)
-- params: {{ k }}, {{ ties }}, {{ min_relevance }}, {{ empty }}
-- output: {{ by }}, map, map_queries (lists used), map_skipped (lists left out)
WITH positions_at_k AS (
    -- the running sums of this call's cutoff (positions.sql holds one table per cutoff in use)
    SELECT p, harmonic_through FROM positions WHERE k = COALESCE({{ k }}, 0)
),
relevant_rows AS (
    SELECT {{ by }}, query, first_position, last_position, group_relevant,
           RANK() OVER (PARTITION BY {{ by }}, query ORDER BY first_position) - 1 AS relevant_before
    FROM ranked
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }} AND relevant = 1
      AND first_position <= COALESCE({{ k }}, first_position)
),
list_parts AS (
    SELECT {{ by }}, query,
           ((relevant_before + 1) * (h_end.harmonic_through - h_start.harmonic_through)
            + CASE WHEN last_position > first_position
                   THEN (group_relevant - 1) / CAST(last_position - first_position AS DOUBLE)
                        * (h_end.p - first_position + 1
                           - first_position * (h_end.harmonic_through - h_start.harmonic_through))
                   ELSE 0 END)
           / CAST(last_position - first_position + 1 AS DOUBLE) AS precision_sum,
           0 AS relevant, 0 AS judged
    FROM relevant_rows
    JOIN positions_at_k AS h_start ON h_start.p = first_position - 1
    JOIN positions_at_k AS h_end ON h_end.p = LEAST(last_position, COALESCE({{ k }}, last_position))
    UNION ALL
    -- every list, even one without a relevant item in the top k or without judgments,
    -- with its relevant and judged items (retrieved or not)
    SELECT {{ by }}, query, 0, relevant, judged
    FROM list_floors
    WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
),
per_list AS (
    SELECT {{ by }}, query,
           CASE WHEN SUM(relevant) > 0 THEN SUM(precision_sum) / CAST(SUM(relevant) AS DOUBLE)
                WHEN SUM(judged) > 0 AND {{ empty }} = 'zero' THEN 0 END AS ap
    FROM list_parts
    GROUP BY {{ by }}, query
)
SELECT {{ by }}, AVG(ap) AS map, COUNT(ap) AS map_queries, COUNT(*) - COUNT(ap) AS map_skipped
FROM per_list
GROUP BY {{ by }}
