-- average_precision's bound in a roll-up of rounded states: how far the average precision
-- of the rows can be from the rounded state's (sm.state(..., score_digits=d)).
--
-- Rounding is monotone, so it only ties rows of one rounded score (a bin b) that may have
-- been ordered; the thresholds of other bins see the same tp and fp. Over the rows, bin b
-- (positive weight p, negative weight n, T and F the positive and negative weight above
-- it, W⁺ the slice's positive weight) adds Σ_t w⁺_t·(T + tp_t) / (T + F + tp_t + fp_t) / W⁺
-- over its own thresholds t (tp_t, fp_t: its weight at or above t), where the rounded
-- state adds c = p·(T + p) / (T + F + p + n) / W⁺. Each precision lies between
--   (T + tp_t) / (T + F + p + n)   (every negative of the bin above)   and
--   (T + p) / (T + F + p)          (no negative above, every positive at or above),
-- and Σ_t w⁺_t·tp_t ≥ p² / 2 (every order of the bin's positives), so its part lies in
--   [lo, hi] = [(p·T + p²/2) / (T + F + p + n), p·(T + p) / (T + F + p)] / W⁺,
-- which holds c. Summed over the bins: AP_rows − AP_rounded lies in [Σ (lo − c), Σ (hi − c)],
--   |AP_rows − AP_rounded| ≤ max(Σ_b (hi_b − c_b), Σ_b (c_b − lo_b)),
-- the bins whose rows had one score (score_min = score_max) adding 0 (they were tied
-- anyway). With tp = T + p and fp = F + n (score_cum's, at or above the bin):
--   hi − c = p·tp·n / ((tp + fp − n)·(tp + fp)) / W⁺,   c − lo = p² / (2·(tp + fp)) / W⁺.
-- NULL where average_precision is (no positive or no negative).
--
-- reads:  score_cum({{ by }}, score, tp, fp, tie_pos, tie_neg), base({{ by }}, score, n, score_min, score_max)
-- output: {{ by }}, average_precision_max_error
SELECT {{ by(c) }},
       CASE WHEN SUM(c.tie_neg) > 0 AND SUM(c.tie_pos) > 0
            THEN GREATEST(
                     SUM(CASE WHEN b.moved AND c.tie_pos > 0 THEN c.tie_pos * (c.tp / CAST(c.tp + c.fp - c.tie_neg AS DOUBLE))
                                                * (c.tie_neg / CAST(c.tp + c.fp AS DOUBLE)) ELSE 0 END),
                     SUM(CASE WHEN b.moved AND c.tie_pos > 0 THEN c.tie_pos * (c.tie_pos / CAST(2 * (c.tp + c.fp) AS DOUBLE)) ELSE 0 END)
                 ) / CAST(SUM(c.tie_pos) AS DOUBLE)
       END AS average_precision_max_error
FROM (
    SELECT {{ by }}, score, MIN(tp) AS tp, MIN(fp) AS fp, MIN(tie_pos) AS tie_pos, MIN(tie_neg) AS tie_neg
    FROM score_cum
    GROUP BY {{ by }}, score
) AS c
JOIN (
    SELECT {{ by }}, score, MIN(score_min) < MAX(score_max) AS moved
    FROM base
    WHERE n > 0
    GROUP BY {{ by }}, score
) AS b ON {{ same_slice(c, b) }} AND c.score = b.score
GROUP BY {{ by(c) }}
