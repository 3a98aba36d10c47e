-- median_absolute_error: the weighted median of |ŷ − y|
-- Over the distinct absolute errors e₁ < e₂ < … (rows of weight > 0) with cumulative
-- weight W(eᵢ) and total W: the mean of the first eᵢ with W(eᵢ) >= W / 2 and the first
-- with W(eᵢ) > W / 2. They are the same error unless W(eᵢ) = W / 2, so without
-- weights this is the ordinary median (the mean of the two middle values of an even
-- count), and with weights scikit-learn's "averaged inverted CDF" weighted percentile.
-- The one regression metric that sorts: the distinct errors of each slice, walked by
-- error_cum (score −e, tp = W(≤ e): the first error is the highest such score). NULL on
-- an empty slice.
--
-- reads:  error_cum({{ by }}, score, w_pos, tp)
-- output: {{ by }}, median_absolute_error
WITH totals AS (
    -- W, and the rounding of a sum of its terms (one unit in the last place, 2^-52, per
    -- term): W(eᵢ) and W / 2 that close are equal (equal weights such as 0.1 or 1e-300
    -- give the unweighted median; their running sums land on either side of the half)
    SELECT {{ by }}, SUM(w_pos) AS w_total,
           SUM(w_pos) * CAST(COUNT(*) AS DOUBLE) * POWER(CAST(2 AS DOUBLE), -52) AS rounding
    FROM error_cum
    GROUP BY {{ by }}
)
SELECT {{ by(c) }},
       -(MAX(CASE WHEN c.tp >= t.w_total / CAST(2 AS DOUBLE) - t.rounding THEN c.score END)
         + MAX(CASE WHEN c.tp > t.w_total / CAST(2 AS DOUBLE) + t.rounding THEN c.score END))
       / CAST(2 AS DOUBLE) AS median_absolute_error
FROM error_cum AS c
JOIN totals AS t ON {{ same_slice(c, t) }}
GROUP BY {{ by(c) }}
