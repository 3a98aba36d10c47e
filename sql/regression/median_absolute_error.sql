-- median_absolute_error: the weighted median of |ŷ − y|
-- Over the distinct absolute errors e₁ < e₂ < … (rows of weight > 0) with cumulative
-- weight W(eᵢ) and total W: the mean of the first eᵢ with W(eᵢ) >= W / 2 and the first
-- with W(eᵢ) > W / 2. They are the same error unless W(eᵢ) = W / 2 exactly, so without
-- weights this is the ordinary median (the mean of the two middle values of an even
-- count), and with weights scikit-learn's "averaged inverted CDF" weighted percentile.
-- The one regression metric that sorts: the distinct errors of each slice. NULL on an
-- empty slice.
--
-- reads:  input({{ by }}, score, label, w)
-- output: {{ by }}, median_absolute_error
WITH errors AS (
    SELECT {{ by }}, ABS(score - label) AS e, SUM(w) AS w
    FROM input
    WHERE w > 0
    GROUP BY {{ by }}, ABS(score - label)
),
cumulative AS (
    SELECT {{ by }}, e,
           SUM(w) OVER (PARTITION BY {{ by }} ORDER BY e ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
               AS w_through,
           SUM(w) OVER (PARTITION BY {{ by }}) AS w_total
    FROM errors
)
SELECT {{ by }},
       (MIN(CASE WHEN w_through >= w_total / 2 THEN e END)
        + MIN(CASE WHEN w_through > w_total / 2 THEN e END)) / 2 AS median_absolute_error
FROM cumulative
GROUP BY {{ by }}
