-- logloss_resolution: logloss's resolution (discrimination) in the binned decomposition of
-- the log score: Σ_b W_b·KL(ō_b ‖ ō) / W, the divergence in nats of the slice's positive
-- rate ō from each bin's ō_b = Σ w·y / Σ w, KL(o ‖ f) = o·ln(o/f) + (1 − o)·ln((1 − o)/(1 − f))
-- with 0·ln 0 = 0; higher is better, at most logloss_uncertainty. The bins are
-- sm.calibration_curve's (calibration_bins). NULL when the slice's weight is 0.
--
-- reads:  calibration_bins(bins, strategy, {{ by }}, bin, w, w_pos)
-- params: {{ bins }} -- INTEGER 1 .. 1,000,000, default 15
--         {{ strategy }} -- 'uniform' (default) or 'quantile'
-- output: {{ by }}, logloss_resolution
SELECT {{ by }},
       SUM(CASE WHEN w > 0
                THEN w * (CASE WHEN o > 0 THEN o * LN(o / CAST(base_rate AS DOUBLE)) ELSE 0 END
                          + CASE WHEN o < 1 THEN (1 - o) * LN((1 - o) / CAST(1 - base_rate AS DOUBLE)) ELSE 0 END)
                ELSE 0 END) / CAST(NULLIF(SUM(w), 0) AS DOUBLE) AS logloss_resolution
FROM (  -- each bin with its slice's positive rate (a join: no window over a slice)
    SELECT {{ by(b) }}, b.w, b.w_pos / CAST(NULLIF(b.w, 0) AS DOUBLE) AS o, r.base_rate
    FROM calibration_bins AS b
    JOIN (
        SELECT {{ by }}, SUM(w_pos) / CAST(NULLIF(SUM(w), 0) AS DOUBLE) AS base_rate
        FROM calibration_bins
        WHERE bins = {{ bins }} AND strategy = {{ strategy }}
        GROUP BY {{ by }}
    ) AS r ON {{ same_slice(b, r) }}
    WHERE b.bins = {{ bins }} AND b.strategy = {{ strategy }}
) AS bin_rates
GROUP BY {{ by }}
