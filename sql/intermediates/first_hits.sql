-- first_hits: per list, for one tie policy and relevance threshold, the first peer group
-- holding a relevant row (label >= min_relevance), found without ranking the list's rows.
-- Only the rows at or above the list's top relevant score (list_floors.top_relevant) can
-- precede or hold it: those above it (none relevant) are counted as one group, those at it
-- per peer group of the policy (nothing for 'average', the label, or the item and
-- label; see ranked.sql), and only these few groups are put in order (cutoff_hits.sql
-- does the same at each list's k-th highest score):
--   a   the group's first position (1 + the rows ranked before it),
--   g   its rows,   m   its relevant rows.
-- The same a, g and m as ranked.sql's first group with relevant_before = 0 and
-- group_relevant > 0. A list without a relevant row has no first hit.
--
-- reads:  input({{ by }}, query, item, score, label, w)  -- w is NULL for an excluded row
--         list_floors(ties, min_relevance, {{ by }}, query, top_relevant)
-- params: {{ ties }}, {{ min_relevance }}, and the policy's peer columns as SQL:
--         {{ peer_columns }} (each NULL above the threshold), {{ peer_keys }}
--         (their names) and {{ peer_order }} (the ORDER BY tail that orders them)
-- output: ties, min_relevance, {{ by }}, query, a, g, m
SELECT {{ ties }} AS ties, {{ min_relevance }} AS min_relevance, {{ by }}, query, rows_before + 1 AS a, n AS g,
       relevant AS m
FROM (
    -- the groups in the policy's order, with the rows and relevant rows before each
    SELECT {{ by }}, query, n, relevant,
           SUM(n) OVER (PARTITION BY {{ by }}, query ORDER BY above DESC NULLS LAST{{ peer_order }}
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - n AS rows_before,
           SUM(relevant) OVER (PARTITION BY {{ by }}, query ORDER BY above DESC NULLS LAST{{ peer_order }}
                               ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - relevant AS relevant_before
    FROM (
        SELECT {{ by }}, query, above{{ peer_keys }}, COUNT(*) AS n, SUM(relevant) AS relevant
        FROM (
            SELECT {{ by(i) }}, i.query, CASE WHEN i.score > f.threshold THEN 1 ELSE 0 END AS above{{ peer_columns }},
                   CASE WHEN i.label >= {{ min_relevance }} THEN 1 ELSE 0 END AS relevant
            FROM input AS i
            JOIN (
                SELECT {{ by }}, query, top_relevant AS threshold
                FROM list_floors
                WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
            ) AS f ON {{ same_slice(i, f) }} AND i.query = f.query AND i.score >= f.threshold
            WHERE i.w IS NOT NULL
        ) AS top_rows
        GROUP BY {{ by }}, query, above{{ peer_keys }}
    ) AS top_groups
) AS ordered_groups
WHERE relevant > 0 AND relevant_before = 0
