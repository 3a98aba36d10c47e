-- ranked: the used rows of every list in rank order, for one tie policy and relevance
-- threshold; the call renders it once per (ties, min_relevance) its ranking metrics use
-- and stacks the renders (UNION ALL). A list is one query within one slice.
-- Rows are ordered by score, descending; {{ tie_breaks }} orders tied scores by the policy:
--   'average'      not at all (nothing): the whole tie group shares its positions
--                  (metrics use the exact expectation over every order of the group);
--   'pessimistic'  ", label" (relevant items last), 'optimistic' ", label DESC";
--   'item'         ", item DESC", as trec_eval does.
-- The window orders by nothing else: every extra sort key costs time, even a constant.
-- Only rows at or above the list's floor are ranked (list_floors: rows no metric of the
-- call can reach are dropped first; a tie group is kept or dropped whole, so every kept
-- row's positions are exact).
-- Rows that stay tied under the policy ("peers": same score, and same label or item)
-- are interchangeable for every metric, so each row carries its peer group:
--   first_position .. last_position   the positions the group occupies (1-based),
--   group_relevant                    its relevant rows (label >= min_relevance).
-- All windows share one sort, and none is a running aggregate: RANK, the COUNT of a RANGE
-- frame and a SUM over the peers alone come from the peer boundaries, while a running
-- SUM (the relevant rows above each row) took DuckDB 16.8 CPU-s against 1.2-1.4 for each
-- of these over 5M rows of Zipf(1.6) lists (1.2 s on evenly spread ones). A metric that
-- needs the relevant rows above a group counts them over its relevant rows (map.sql).
--
-- reads:  input({{ by }}, query, item, score, label, w)  -- w is NULL for an excluded row
--         list_floors(ties, min_relevance, {{ by }}, query, floor)  -- one row per list and
--         (tie policy, relevance threshold) in use
-- params: {{ ties }}, {{ min_relevance }}, {{ tie_breaks }} (SQL: the policy's ORDER BY tail)
-- output: ties, min_relevance, {{ by }}, query, label, relevant,
--         first_position, last_position, group_relevant
SELECT {{ ties }} AS ties, {{ min_relevance }} AS min_relevance, {{ by }}, query, label, relevant,
       RANK() OVER (PARTITION BY {{ by }}, query ORDER BY score DESC NULLS LAST{{ tie_breaks }}) AS first_position,
       COUNT(*) OVER (PARTITION BY {{ by }}, query ORDER BY score DESC NULLS LAST{{ tie_breaks }}
                      RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS last_position,
       SUM(relevant) OVER (PARTITION BY {{ by }}, query ORDER BY score DESC NULLS LAST{{ tie_breaks }}
                           RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS group_relevant
FROM (
    SELECT {{ by(i) }}, i.query, i.item, i.score, i.label,
           CASE WHEN i.label >= {{ min_relevance }} THEN 1 ELSE 0 END AS relevant
    FROM input AS i
    JOIN list_floors AS f ON {{ same_slice(i, f) }} AND i.query = f.query AND i.score >= f.floor
    WHERE i.w IS NOT NULL AND f.ties = {{ ties }} AND f.min_relevance = {{ min_relevance }}
) AS list_rows
