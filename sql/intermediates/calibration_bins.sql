-- calibration_bins: the score histogram cut into scikit-learn's calibration_curve bins,
-- per slice and non-empty bin: n rows, weight w, positives' weight w_pos and Σ w·p
-- (w_score). Read by sm.calibration_curve and by the metrics of the bins (ece, the
-- reliability and resolution of brier and logloss), one render per (bins, strategy).
-- Bin edges are numpy's: {{ cuts }} holds numpy.linspace(0, 1, bins + 1), cut j at
-- fraction = j · {{ step }} ({{ step }} = 1 / bins; the last cut exactly 1), and level =
-- fraction · 100 / 100 (what numpy.percentile reads after scikit-learn's fraction · 100);
-- the inner cuts j = 1 .. bins − 1 are the edges that separate bins.
--   uniform:  the edges are the fractions. A score's bin is c = ⌈p · bins⌉ − 1 (held
--             within 0 .. bins − 1), one lower when edge c is not below p, one higher
--             when edge c + 1 is (no sort: the score alone gives its bin).
--   quantile: the edges are numpy.percentile(p, fraction · 100) over the slice's rows
--             (weights do not move edges): virtual position v = (rows − 1) · level
--             between the order statistics a = p(⌊v⌋) and b = p(⌊v⌋ + 1), t = v − ⌊v⌋:
--             edge = a + (b − a)·t, or b − (b − a)·(1 − t) when t >= 0.5 (numpy's
--             _lerp, to the last bit); a score's bin is the number of edges below it.
-- A score's bin is the number of inner edges strictly below it
-- (numpy.searchsorted(edges, p, side="left")): a score equal to an edge falls in the
-- lower bin; 0 is in bin 0, 1 in bin bins − 1.
--
-- reads:  score_hist({{ by }}, score, n, w_pos, w_neg)
-- params: {{ bins }}, {{ strategy }} ('uniform' or 'quantile'); {{ step }} (DOUBLE 1 / bins);
--         {{ cuts }}, a table cuts(j, fraction, level) of DOUBLE numbers that the
--         statement generates (its text stays small for any bins), e.g. for 2 bins the rows
--         (0, 0.0, 0.0), (1, 0.5, 0.5), (2, 1.0, 1.0)
-- output: bins, strategy, {{ by }}, bin, n, w, w_pos, w_score
SELECT {{ bins }} AS bins, {{ strategy }} AS strategy, {{ by }}, bin,
       CAST(SUM(n) AS BIGINT) AS n, SUM(w) AS w, SUM(w_pos) AS w_pos, SUM(score * w) AS w_score
FROM (
    WITH bin_scores AS (
        SELECT {{ by }}, score, SUM(n) AS n, CAST(SUM(w_pos + w_neg) AS DOUBLE) AS w,
               CAST(SUM(w_pos) AS DOUBLE) AS w_pos
        FROM score_hist
        GROUP BY {{ by }}, score
    ),
    uniform_guess AS (
        SELECT {{ by }}, score, n, w, w_pos,
               -- the score clamped to [0, 1] first (the same bin for every finite score): a NaN or
               -- infinite score, which the input check refuses, must not fail this cast before it
               LEAST(GREATEST(CAST(CEIL(LEAST(GREATEST(score, 0), 1) * {{ bins }}) AS BIGINT) - 1, 0), {{ bins }} - 1) AS c
        FROM bin_scores
        WHERE {{ strategy }} = 'uniform'
    ),
    bin_ranked AS (  -- the rows of a score are the order statistics below .. below + n − 1
        SELECT {{ by }}, score, n,
               COALESCE(SUM(n) OVER (PARTITION BY {{ by }} ORDER BY score ASC NULLS LAST
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS below
        FROM bin_scores
        WHERE {{ strategy }} = 'quantile'
    ),
    slice_rows AS (
        SELECT {{ by }}, SUM(n) AS n
        FROM bin_scores
        WHERE {{ strategy }} = 'quantile'
        GROUP BY {{ by }}
    ),
    positions AS (
        SELECT {{ by }}, j, FLOOR(v) AS lower, LEAST(FLOOR(v) + 1, CAST(n - 1 AS DOUBLE)) AS upper, v - FLOOR(v) AS t
        FROM (
            SELECT {{ by(s) }}, cuts.j, CAST(s.n - 1 AS DOUBLE) * cuts.level AS v, s.n
            FROM slice_rows AS s
            CROSS JOIN {{ cuts }}
            WHERE cuts.j BETWEEN 1 AND {{ bins }} - 1
        ) AS levels
    ),
    edges AS (
        SELECT {{ by(p) }},
               CASE WHEN p.t >= CAST(0.5 AS DOUBLE) THEN b.score - (b.score - a.score) * (1 - p.t)
                    ELSE a.score + (b.score - a.score) * p.t END AS edge
        FROM positions AS p
        JOIN bin_ranked AS a ON {{ same_slice(p, a) }} AND p.lower >= a.below AND p.lower < a.below + a.n
        JOIN bin_ranked AS b ON {{ same_slice(p, b) }} AND p.upper >= b.below AND p.upper < b.below + b.n
    ),
    quantile_binned AS (  -- scores and edges in one order, an edge after an equal score; a
                          -- score row (unique per slice) counts the edges below it whatever
                          -- the order of equal edges
        SELECT {{ by }}, value AS score, n, w, w_pos, is_edge,
               SUM(is_edge) OVER (PARTITION BY {{ by }} ORDER BY value ASC NULLS LAST, is_edge ASC NULLS LAST
                                  RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS edges_below
        FROM (
            SELECT {{ by }}, score AS value, n, w, w_pos, 0 AS is_edge FROM bin_scores WHERE {{ strategy }} = 'quantile'
            UNION ALL
            SELECT {{ by }}, edge, NULL, NULL, NULL, 1 FROM edges
        ) AS scores_and_edges
    )
    SELECT {{ by }}, score, n, w, w_pos,
           c - CASE WHEN c >= 1 AND CAST(c AS DOUBLE) * {{ step }} >= score THEN 1 ELSE 0 END
             + CASE WHEN c + 1 <= {{ bins }} - 1 AND CAST(c + 1 AS DOUBLE) * {{ step }} < score THEN 1 ELSE 0 END
             AS bin
    FROM uniform_guess
    UNION ALL
    SELECT {{ by }}, score, n, w, w_pos, CAST(edges_below AS BIGINT) AS bin
    FROM quantile_binned
    WHERE is_edge = 0
) AS binned
GROUP BY {{ by }}, bin
