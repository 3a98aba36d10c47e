-- calibration_curve: scikit-learn's calibration_curve(y, p, n_bins=bins, strategy=...),
-- one row per non-empty bin, weighted:
--   mean_score = Σ w·p / Σ w,  observed_rate = Σ w·y / Σ w  (NULL when Σ w = 0),
--   count = rows in the bin,  weight = Σ w.
-- Bin edges are numpy's: {{ cuts }} holds numpy.linspace(0, 1, bins + 1), cut j at
-- fraction = j · (1 / bins) (the last exactly 1), and level = fraction · 100 / 100 (what
-- numpy.percentile reads after scikit-learn's fraction · 100); the inner cuts
-- j = 1 .. bins − 1 are the edges that separate bins.
--   uniform:  the edges are the fractions.
--   quantile: the edges are numpy.percentile(p, fraction · 100) over the slice's rows
--             (weights do not move edges): virtual position v = (rows − 1) · level
--             between the order statistics a = p(⌊v⌋) and b = p(⌊v⌋ + 1), t = v − ⌊v⌋:
--             edge = a + (b − a)·t, or b − (b − a)·(1 − t) when t >= 0.5 (numpy's
--             _lerp, to the last bit).
-- A score's bin is the number of inner edges strictly below it
-- (numpy.searchsorted(edges, p, side="left")): a score equal to an edge falls in the
-- lower bin; 0 is in bin 0, 1 in bin bins − 1.
--
-- reads:  score_hist({{ by }}, score, n, w_pos, w_neg)
-- params: {{ bins }}; {{ cuts }}, a table cuts(j, fraction, level) of DOUBLE numbers that the
--         statement generates (its text stays small for any bins), e.g. for 2 bins the rows
--         (0, 0.0, 0.0), (1, 0.5, 0.5), (2, 1.0, 1.0);
--         {{ strategy }} ('uniform' or 'quantile')
-- output: {{ by }}, bin, mean_score, observed_rate, count, weight
WITH scores AS (
    SELECT {{ by }}, score, SUM(n) AS n, CAST(SUM(w_pos + w_neg) AS DOUBLE) AS w, CAST(SUM(w_pos) AS DOUBLE) AS w_pos
    FROM score_hist
    GROUP BY {{ by }}, score
),
ranked AS (  -- the rows of a score are the order statistics below .. below + n − 1
    SELECT {{ by }}, score, n,
           COALESCE(SUM(n) OVER (PARTITION BY {{ by }} ORDER BY score ASC NULLS LAST
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS below
    FROM scores
),
slice_rows AS (
    SELECT {{ by }}, SUM(n) AS n
    FROM scores
    GROUP BY {{ by }}
),
positions AS (
    SELECT {{ by }}, j, FLOOR(v) AS lower, LEAST(FLOOR(v) + 1, n - 1) AS upper, v - FLOOR(v) AS t
    FROM (
        SELECT {{ by(s) }}, cuts.j, CAST(s.n - 1 AS DOUBLE) * cuts.level AS v, s.n
        FROM slice_rows AS s
        CROSS JOIN {{ cuts }}
        WHERE {{ strategy }} = 'quantile' AND cuts.j BETWEEN 1 AND {{ bins }} - 1
    ) AS levels
),
edges AS (
    SELECT {{ by(s) }}, cuts.fraction AS edge
    FROM slice_rows AS s
    CROSS JOIN {{ cuts }}
    WHERE {{ strategy }} = 'uniform' AND cuts.j BETWEEN 1 AND {{ bins }} - 1
    UNION ALL
    SELECT {{ by(p) }},
           CASE WHEN p.t >= CAST(0.5 AS DOUBLE) THEN b.score - (b.score - a.score) * (1 - p.t)
                ELSE a.score + (b.score - a.score) * p.t END AS edge
    FROM positions AS p
    JOIN ranked AS a ON {{ same_slice(p, a) }} AND p.lower >= a.below AND p.lower < a.below + a.n
    JOIN ranked AS b ON {{ same_slice(p, b) }} AND p.upper >= b.below AND p.upper < b.below + b.n
),
binned AS (  -- scores and edges in one order, an edge after an equal score; a score row
            -- (unique per slice) counts the edges below it whatever the order of equal edges
    SELECT {{ by }}, value AS score, n, w, w_pos, is_edge,
           SUM(is_edge) OVER (PARTITION BY {{ by }} ORDER BY value ASC NULLS LAST, is_edge ASC NULLS LAST
                              RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS edges_below
    FROM (
        SELECT {{ by }}, score AS value, n, w, w_pos, 0 AS is_edge FROM scores
        UNION ALL
        SELECT {{ by }}, edge, NULL, NULL, NULL, 1 FROM edges
    ) AS scores_and_edges
)
SELECT {{ by }}, CAST(edges_below AS BIGINT) AS bin,
       SUM(score * w) / CAST(NULLIF(SUM(w), 0) AS DOUBLE) AS mean_score,
       SUM(w_pos) / CAST(NULLIF(SUM(w), 0) AS DOUBLE) AS observed_rate,
       CAST(SUM(n) AS BIGINT) AS count,
       SUM(w) AS weight
FROM binned
WHERE is_edge = 0
GROUP BY {{ by }}, edges_below
