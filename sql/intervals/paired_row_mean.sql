-- paired_row_mean: the standard error of the difference of two scores' means of a row
-- value over the same rows (logloss, brier, score_mean, label_mean; sm.compare with
-- scores=). Each row's value under score 1 and under score 2 ({{ positive }} for a
-- positive row, {{ negative }} for a negative one, SQL over score), d = x₂ − x₁, and
--   se² = Σ w·(d − d̄)² / ((W − 1)·W),
-- the mean over rows' (row_mean.sql) of the differences: a paired comparison, far
-- narrower than the two means' own intervals when the scores agree on most rows.
-- Weights count as frequencies; the spread is given on the rows of the second score
-- ({{ pair }} = 2); NULL unless W > 1.
--
-- reads:  paired_rows({{ by }}, label, score_1, score_2, w)
-- output: {{ by }}, {{ pair }}, se, df (NULL: the normal interval)
SELECT {{ by }}, 2 AS {{ pair }},
       SQRT(SUM(w * (d - mean) * (d - mean)) / CAST(MIN(total) AS DOUBLE) / CAST(MIN(total) - 1 AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    -- each slice's mean difference, for the squares about it (two passes)
    SELECT {{ by }}, w, d, SUM(w * d) OVER (PARTITION BY {{ by }}) / CAST(SUM(w) OVER (PARTITION BY {{ by }}) AS DOUBLE) AS mean,
           SUM(w) OVER (PARTITION BY {{ by }}) AS total
    FROM (
        SELECT {{ by }}, w, CASE WHEN label = 1 THEN {{ positive }} ELSE {{ negative }} END - x_1 AS d
        FROM (
            SELECT {{ by }}, w, label, x_1, score_2 AS score
            FROM (
                SELECT {{ by }}, w, label, score_2, CASE WHEN label = 1 THEN {{ positive }} ELSE {{ negative }} END AS x_1
                FROM (SELECT {{ by }}, w, label, score_1 AS score, score_2 FROM paired_rows WHERE w IS NOT NULL) AS first
            ) AS valued
        ) AS second
    ) AS differences
) AS centred
GROUP BY {{ by }}
HAVING MIN(total) > 1
