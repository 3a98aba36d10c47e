-- paired_histogram_delta: the delta method's standard error of the difference of a
-- smooth function f of a few weighted means over the rows (calibration) under two scores
-- of the same rows (sm.compare with scores=). Each row's influence u_k on f under score
-- k (histogram_delta.sql's: {{ positive }} for a positive row, {{ negative }} for a
-- negative one, SQL over score and the slice's means {{ means }} under that score)
-- averages 0, and the difference's is d = u_2 − u_1, so
--   se² = Σ w·d² / (W·(W − 1)),
-- var f_1 + var f_2 − 2·cov(f_1, f_2): what the scores share on the same rows cancels.
-- Weights count as frequencies; the spread is given on the rows of the second score
-- ({{ pair }} = 2); NULL unless W > 1 and f and its gradient are defined under both.
--
-- reads:  paired_rows({{ by }}, label, score_1, score_2, w)
-- output: {{ by }}, {{ pair }}, se, df (NULL: the normal interval)
SELECT {{ by }}, 2 AS {{ pair }},
       SQRT(SUM(w * d * d) / CAST(MIN(total) AS DOUBLE) / CAST(MIN(total) - 1 AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    -- each row's influence under the second score, less the first's
    SELECT {{ by(r) }}, r.w, m.total,
           CASE WHEN r.positive = 1 THEN {{ positive }} ELSE {{ negative }} END - r.u_1 AS d
    FROM (
        SELECT {{ by }}, w, positive, score_2 AS score, u_1
        FROM (
            -- each row's influence under the first score
            SELECT {{ by(r) }}, r.w, r.positive, r.score_2,
                   CASE WHEN r.positive = 1 THEN {{ positive }} ELSE {{ negative }} END AS u_1
            FROM (
                SELECT {{ by }}, w, score_1 AS score, score_2, CASE WHEN label = 1 THEN 1 ELSE 0 END AS positive
                FROM paired_rows
                WHERE w IS NOT NULL
            ) AS r
            JOIN (
                SELECT {{ by }}, {{ means }}
                FROM (
                    SELECT {{ by }}, score_1 AS score, CASE WHEN label = 1 THEN w ELSE 0 END AS w_pos,
                           CASE WHEN label = 1 THEN 0 ELSE w END AS w_neg
                    FROM paired_rows
                    WHERE w IS NOT NULL
                ) AS first_rows
                GROUP BY {{ by }}
            ) AS m ON {{ same_slice(r, m) }}
        ) AS first_influences
    ) AS r
    JOIN (
        SELECT {{ by }}, SUM(w_pos + w_neg) AS total, {{ means }}
        FROM (
            SELECT {{ by }}, score_2 AS score, CASE WHEN label = 1 THEN w ELSE 0 END AS w_pos,
                   CASE WHEN label = 1 THEN 0 ELSE w END AS w_neg
            FROM paired_rows
            WHERE w IS NOT NULL
        ) AS second_rows
        GROUP BY {{ by }}
        HAVING SUM(w_pos + w_neg) > 1
    ) AS m ON {{ same_slice(r, m) }}
) AS influences
GROUP BY {{ by }}
