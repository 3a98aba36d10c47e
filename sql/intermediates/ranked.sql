-- ranked: the used rows of every list in rank order, once per tie policy and relevance
-- threshold that the call's ranking metrics use. A list is one query within one slice.
-- Rows are ordered by score, descending; tied scores are ordered by the policy:
--   'average'      not at all: the whole tie group shares its positions (metrics use
--                  the exact expectation over every order of the group);
--   'pessimistic'  label ascending (relevant items last), 'optimistic' label descending;
--   'item'         item descending, as trec_eval does.
-- Only rows at or above the list's floor are ranked (list_floors: rows no metric of the
-- call can reach are dropped first; a tie group is kept or dropped whole, so every kept
-- row's positions are exact).
-- Rows that stay tied under the policy ("peers": same score, and same label or item)
-- are interchangeable for every metric, so each row carries its peer group:
--   first_position .. last_position   the positions the group occupies (1-based),
--   group_relevant                    its relevant rows (label >= min_relevance),
--   relevant_before                   the relevant rows ranked above the group.
-- All windows share one sort.
--
-- reads:  input({{ by }}, query, item, score, label, w)  -- w is NULL for an excluded row
--         list_floors(ties, min_relevance, {{ by }}, query, floor)  -- one row per list and
--         (tie policy, relevance threshold) in use
-- output: ties, min_relevance, {{ by }}, query, label, relevant,
--         first_position, last_position, group_relevant, relevant_before
SELECT ties, min_relevance, {{ by }}, query, label, relevant,
       RANK() OVER (PARTITION BY ties, min_relevance, {{ by }}, query
                    ORDER BY score DESC, tie_item DESC, tie_label) AS first_position,
       COUNT(*) OVER (PARTITION BY ties, min_relevance, {{ by }}, query
                      ORDER BY score DESC, tie_item DESC, tie_label
                      RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS last_position,
       SUM(relevant) OVER (PARTITION BY ties, min_relevance, {{ by }}, query
                           ORDER BY score DESC, tie_item DESC, tie_label
                           RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS group_relevant,
       SUM(relevant) OVER (PARTITION BY ties, min_relevance, {{ by }}, query
                           ORDER BY score DESC, tie_item DESC, tie_label
                           RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
       - SUM(relevant) OVER (PARTITION BY ties, min_relevance, {{ by }}, query
                             ORDER BY score DESC, tie_item DESC, tie_label
                             RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS relevant_before
FROM (
    SELECT f.ties, f.min_relevance, {{ by(i) }}, i.query, i.score, i.label,
           CASE WHEN i.label >= f.min_relevance THEN 1 ELSE 0 END AS relevant,
           CASE WHEN f.ties = 'item' THEN i.item END AS tie_item,
           CASE f.ties WHEN 'average' THEN 0 WHEN 'optimistic' THEN -i.label ELSE i.label END AS tie_label
    FROM input AS i
    JOIN list_floors AS f ON {{ same_slice(i, f) }} AND i.query = f.query AND i.score >= f.floor
    WHERE i.w IS NOT NULL
) AS list_rows
