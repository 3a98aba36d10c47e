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
       SQRT(SUM(pos_share * (d_pos - mean_pos) * (d_pos - mean_pos)) / CAST(MIN(pos) - 1 AS DOUBLE)
            + SUM(neg_share * (d_neg - mean_neg) * (d_neg - mean_neg)) / CAST(MIN(neg) - 1 AS DOUBLE)) AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    -- each class's mean difference of placements, for the squares about it (two passes:
    -- no cancellation when the differences are nearly equal)
    SELECT {{ by }}, pos, neg, pos_share, neg_share, d_pos, d_neg,
           SUM(pos_share * d_pos) OVER (PARTITION BY {{ by }}) AS mean_pos,
           SUM(neg_share * d_neg) OVER (PARTITION BY {{ by }}) AS mean_neg
    FROM (
        -- the placements' differences as fractions, D⁺ = (b_2 − b_1) / W⁻ and
        -- D⁻ = (a_2 − a_1) / W⁺, and each weight as its class's share: Σ w·(D − Δ)² /
        -- ((W − 1)·W) = Σ (w/W)·(D − Δ)² / (W − 1), exact for weights of any size
        SELECT {{ by }}, pos, neg,
               w_pos / CAST(pos_total AS DOUBLE) AS pos_share, w_neg / CAST(neg_total AS DOUBLE) AS neg_share,
               (b_2 - b_1) / CAST(neg_total AS DOUBLE) AS d_pos, (a_2 - a_1) / CAST(pos_total AS DOUBLE) AS d_neg
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
    ) AS differences
) AS centred
GROUP BY {{ by }}
HAVING MIN(pos) > 1 AND MIN(neg) > 1
