-- cutoff_hits: per list, for one tie policy, relevance threshold and cutoff k, hits@k:
-- the expected relevant rows (label >= min_relevance) in the top k positions, found
-- without ranking the list's rows. Only rows at or above the list's floor
-- (list_floors.{{ cutoff }}: the larger of its k-th highest score and its lowest
-- relevant score; k NULL: the latter) matter: every row above the k-th highest score is
-- in the top k, none below it, and no relevant row lies below the floor. The rows at the
-- floor may straddle position k, in peer groups of the policy (nothing for 'average',
-- the label, or the item and label; see ranked.sql). So the rows at or above it are
-- counted, those above as one group and those at it per peer group, and only these few
-- groups are put in order: a group of n rows after the first b shares the positions
-- b + 1 .. b + n, min(n, max(k − b, 0)) of them within k, evenly among its rows (the
-- exact mean over every order of a tie group under ties = 'average'):
--   hits@k = Σ_groups relevant · min(n, max(k − b, 0)) / n.
-- The same hits@k as summing ranked.sql's rows in the top k. A list without a relevant
-- row has no floor and no row here (hits@k = 0).
--
-- reads:  input({{ by }}, query, item, score, label, w)  -- w is NULL for an excluded row
--         list_floors(ties, min_relevance, {{ by }}, query, {{ cutoff }})
-- params: {{ ties }}, {{ min_relevance }}, {{ k }}, {{ cutoff }} (the list_floors column
--         of the floor), and the policy's peer columns as SQL:
--         {{ peer_columns }} (each NULL above the threshold), {{ peer_keys }} (their
--         names) and {{ peer_order }} (the ORDER BY tail that orders them)
-- output: ties, min_relevance, k, {{ by }}, query, hits
SELECT {{ ties }} AS ties, {{ min_relevance }} AS min_relevance, {{ k }} AS k, {{ by }}, query,
       SUM(relevant * LEAST(n, GREATEST(COALESCE({{ k }}, rows_before + n) - rows_before, 0)) / CAST(n AS DOUBLE))
           AS hits
FROM (
    -- the groups in the policy's order, with the rows before each
    SELECT {{ by }}, query, n, relevant,
           SUM(n) OVER (PARTITION BY {{ by }}, query ORDER BY above DESC NULLS LAST{{ peer_order }}
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - n AS rows_before
    FROM (
        SELECT {{ by }}, query, above{{ peer_keys }}, COUNT(*) AS n, SUM(relevant) AS relevant
        FROM (
            SELECT {{ by(i) }}, i.query, CASE WHEN i.score > f.threshold THEN 1 ELSE 0 END AS above{{ peer_columns }},
                   CASE WHEN i.label >= {{ min_relevance }} THEN 1 ELSE 0 END AS relevant
            FROM input AS i
            JOIN (
                SELECT {{ by }}, query, {{ cutoff }} AS threshold
                FROM list_floors
                WHERE ties = {{ ties }} AND min_relevance = {{ min_relevance }}
            ) AS f ON {{ same_slice(i, f) }} AND i.query = f.query AND i.score >= f.threshold
            WHERE i.w IS NOT NULL
        ) AS top_rows
        GROUP BY {{ by }}, query, above{{ peer_keys }}
    ) AS top_groups
) AS ordered_groups
GROUP BY {{ by }}, query
