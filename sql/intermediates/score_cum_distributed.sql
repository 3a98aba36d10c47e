-- score_cum, distributed: the tp and fp of score_cum.sql without a window over a whole
-- slice, which an engine that spreads rows over workers runs on one of them (Spark:
-- "No Partition Defined for Window operation! Moving all data to a single partition").
-- Each slice's finite scores are cut into N ranges of equal width (N the parameter
-- buckets) from its lowest to its highest finite score: buckets 0 to N, the highest
-- score alone in N; scores beyond ±1e300, infinities and NaN get a bucket of their own
-- at either end, -1 and N + 1. The bucket is a
-- function of the score, so a tied score falls in one bucket, and a non-decreasing one
-- (each step of the arithmetic rounds monotonically), so a higher bucket holds only
-- higher scores. tp is then the positive weight at or above the entry's score within
-- its bucket (a window partitioned by slice and bucket: the work spreads over the
-- buckets) plus the positive weight of the buckets above (a running sum over the
-- per-bucket totals, a few rows per slice, joined back); fp likewise. The same numbers
-- as score_cum.sql. Equal widths: a few outlying scores crowd the rest into few
-- buckets, which stays exact, only less spread.
--
-- reads:  {{ hist }}({{ by }}, score, w_pos, w_neg)
-- params: {{ buckets }} (an integer >= 1)
-- output: {{ by }}, score, w_pos, w_neg, tp, fp, tie_pos, tie_neg, rank_from, rank_to,
--         pos_total, neg_total (rank_from .. rank_to and the slice's positive and
--         negative weight: as in score_cum.sql; the totals from the per-slice ranges)
WITH ranges AS (
    SELECT {{ by }},
           MIN(CASE WHEN ABS(score) < 1e300 THEN score END) AS lo,
           MAX(CASE WHEN ABS(score) < 1e300 THEN score END) AS hi,
           SUM(w_pos) AS pos_total, SUM(w_neg) AS neg_total
    FROM {{ hist }}
    GROUP BY {{ by }}
),
bucketed AS (
    SELECT {{ by(h) }}, h.score, h.w_pos, h.w_neg, r.pos_total, r.neg_total,
           CASE WHEN ABS(h.score) < 1e300
                THEN COALESCE(CAST(FLOOR((h.score - r.lo) / CAST(NULLIF(r.hi - r.lo, 0) AS DOUBLE) * {{ buckets }}) AS BIGINT), 0)
                WHEN h.score < 0 THEN -1
                ELSE {{ buckets }} + 1
           END AS bucket
    FROM {{ hist }} AS h
    JOIN ranges AS r ON {{ same_slice(h, r) }}
),
above AS (
    SELECT {{ by }}, bucket,
           SUM(w_pos) OVER (PARTITION BY {{ by }} ORDER BY bucket DESC NULLS LAST
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pos_above,
           SUM(w_neg) OVER (PARTITION BY {{ by }} ORDER BY bucket DESC NULLS LAST
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS neg_above
    FROM (
        SELECT {{ by }}, bucket, SUM(w_pos) AS w_pos, SUM(w_neg) AS w_neg
        FROM bucketed
        GROUP BY {{ by }}, bucket
    ) AS totals
)
SELECT {{ by(e) }}, e.score, e.w_pos, e.w_neg,
       e.tp_within + COALESCE(a.pos_above, 0) AS tp,
       e.fp_within + COALESCE(a.neg_above, 0) AS fp,
       e.tie_pos, e.tie_neg,
       e.tp_within + COALESCE(a.pos_above, 0) + e.fp_within + COALESCE(a.neg_above, 0) - e.tie_pos - e.tie_neg + 1
           AS rank_from,
       e.tp_within + COALESCE(a.pos_above, 0) + e.fp_within + COALESCE(a.neg_above, 0) AS rank_to,
       e.pos_total, e.neg_total
FROM (
    SELECT {{ by }}, bucket, score, w_pos, w_neg, pos_total, neg_total,
           SUM(w_pos) OVER (PARTITION BY {{ by }}, bucket ORDER BY score DESC NULLS LAST
                            RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS tp_within,
           SUM(w_neg) OVER (PARTITION BY {{ by }}, bucket ORDER BY score DESC NULLS LAST
                            RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS fp_within,
           SUM(w_pos) OVER (PARTITION BY {{ by }}, bucket ORDER BY score DESC NULLS LAST
                            RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS tie_pos,
           SUM(w_neg) OVER (PARTITION BY {{ by }}, bucket ORDER BY score DESC NULLS LAST
                            RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS tie_neg
    FROM bucketed
) AS e
JOIN above AS a ON {{ same_slice(e, a) }} AND e.bucket = a.bucket
