-- paired_delong: DeLong's standard error of the difference of two scores' AUCs over the
-- same rows (DeLong, DeLong & Clarke-Pearson 1988; sm.compare with scores=). Each
-- positive's placement under score k is V⁺_k = (the negative weight below its score_k
-- + half the negative weight at it) / W⁻, each negative's V⁻_k = (the positive weight
-- above its score_k + half at it) / W⁺. With the differences D⁺ = V⁺_2 − V⁺_1 and
-- D⁻ = V⁻_2 − V⁻_1, whose weighted means are both Δ = AUC_2 − AUC_1,
--   se² = Σ_pos w·(D⁺ − Δ)² / ((W⁺ − 1)·W⁺) + Σ_neg w·(D⁻ − Δ)² / ((W⁻ − 1)·W⁻),
-- which is var(AUC_1) + var(AUC_2) − 2·cov(AUC_1, AUC_2) of DeLong's covariance matrix.
-- Below, b and a are the placements in weight units (V⁺_k = b_k / W⁻, V⁻_k = a_k / W⁺), from
-- windows over the rows ordered by each score. Weights count as frequencies. The spread is
-- given on the rows of the second score ({{ pair }} = 2); NULL unless each class weighs
-- more than 1.
--
-- reads:  paired_rows({{ by }}, label, score_1, score_2, w)
-- output: {{ by }}, {{ pair }}, se, df (NULL: the normal interval)
SELECT {{ by }}, 2 AS {{ pair }},
       SQRT(GREATEST(pos_d2 - pos_d * (pos_d / CAST(pos AS DOUBLE)), 0) / CAST(pos AS DOUBLE) / CAST(pos - 1 AS DOUBLE)
            + GREATEST(neg_d2 - neg_d * (neg_d / CAST(neg AS DOUBLE)), 0) / CAST(neg AS DOUBLE) / CAST(neg - 1 AS DOUBLE))
           AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    -- the placements as fractions, D⁺ = (b_2 − b_1) / W⁻ and D⁻ = (a_2 − a_1) / W⁺, and
    -- each division taken before a product of weights: Σ w·(D − Δ)² / ((W − 1)·W) =
    -- (Σ w·D² − Σ w·D · (Σ w·D / W)) / W / (W − 1), exact for weights of any size
    SELECT {{ by }}, MIN(pos) AS pos, MIN(neg) AS neg,
           SUM(w_pos * ((b_2 - b_1) / CAST(neg_total AS DOUBLE))) AS pos_d,
           SUM(w_pos * ((b_2 - b_1) / CAST(neg_total AS DOUBLE)) * ((b_2 - b_1) / CAST(neg_total AS DOUBLE))) AS pos_d2,
           SUM(w_neg * ((a_2 - a_1) / CAST(pos_total AS DOUBLE))) AS neg_d,
           SUM(w_neg * ((a_2 - a_1) / CAST(pos_total AS DOUBLE)) * ((a_2 - a_1) / CAST(pos_total AS DOUBLE))) AS neg_d2
    FROM (
        SELECT {{ by }}, w_pos, w_neg,
               SUM(w_pos) OVER (PARTITION BY {{ by }}) AS pos, SUM(w_neg) OVER (PARTITION BY {{ by }}) AS neg,
               -- the class totals as divisors (NULL for an empty class: no division by 0)
               NULLIF(SUM(w_pos) OVER (PARTITION BY {{ by }}), 0) AS pos_total,
               NULLIF(SUM(w_neg) OVER (PARTITION BY {{ by }}), 0) AS neg_total,
               SUM(w_neg) OVER (PARTITION BY {{ by }} ORDER BY score_1 ASC NULLS LAST
                                RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
               - SUM(w_neg) OVER (PARTITION BY {{ by }}, score_1) / 2e0 AS b_1,
               SUM(w_neg) OVER (PARTITION BY {{ by }} ORDER BY score_2 ASC NULLS LAST
                                RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
               - SUM(w_neg) OVER (PARTITION BY {{ by }}, score_2) / 2e0 AS b_2,
               SUM(w_pos) OVER (PARTITION BY {{ by }} ORDER BY score_1 ASC NULLS LAST
                                RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
               - SUM(w_pos) OVER (PARTITION BY {{ by }}, score_1) / 2e0 AS a_1,
               SUM(w_pos) OVER (PARTITION BY {{ by }} ORDER BY score_2 ASC NULLS LAST
                                RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
               - SUM(w_pos) OVER (PARTITION BY {{ by }}, score_2) / 2e0 AS a_2
        FROM (
            SELECT {{ by }}, score_1, score_2,
                   CASE WHEN label = 1 THEN w ELSE 0 END AS w_pos,
                   CASE WHEN label = 1 THEN 0 ELSE w END AS w_neg
            FROM paired_rows
            WHERE w IS NOT NULL
        ) AS used
    ) AS placed
    GROUP BY {{ by }}
    HAVING SUM(w_pos) > 1 AND SUM(w_neg) > 1
) AS sums
