-- score_hist, row by row: the plan for scores that are nearly all distinct, where a
-- histogram by score would hold a group per row (a hash aggregate as large as the
-- input) and the metrics then sort it anyway. Each used row is its own entry, with the
-- weight w_pos of a positive or w_neg of a negative; a score held by several rows has
-- several entries, which the metrics' RANGE frames take together exactly as they take
-- the two rows of a histogram score, so every metric reading score_hist gives the same
-- number from either plan.
--
-- reads:  input({{ by }}, score, label, w)  -- w is NULL for an excluded row
-- params: {{ weight }} -- a used row's weight: w, or 1 (an INTEGER) for an unweighted
--         call on DuckDB, whose window sums add integers twice as fast as DOUBLE
-- output: {{ by }}, score, n, w_pos, w_neg  (n = 1: one used row)
SELECT {{ by }}, score, 1 AS n,
       CASE WHEN label = 1 THEN {{ weight }} ELSE 0 END AS w_pos,
       CASE WHEN label = 1 THEN 0 ELSE {{ weight }} END AS w_neg
FROM input
WHERE w IS NOT NULL
