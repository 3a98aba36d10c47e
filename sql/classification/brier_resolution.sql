-- brier_resolution: the Brier score's resolution (discrimination) in Murphy's binned
-- decomposition: Σ_b W_b·(ō_b − ō)² / W, with ō_b = Σ w·y / Σ w the bin's observed
-- positive rate, ō the slice's, W_b the bin's weight and W the slice's; higher is better,
-- at most brier_uncertainty = ō·(1 − ō). The bins are sm.calibration_curve's
-- (calibration_bins). NULL when the slice's weight is 0.
--
-- reads:  calibration_bins(bins, strategy, {{ by }}, bin, w, w_pos)
-- params: {{ bins }} -- INTEGER 1 .. 1,000,000, default 15
--         {{ strategy }} -- 'uniform' (default) or 'quantile'
-- output: {{ by }}, brier_resolution
SELECT {{ by }},
       SUM(CASE WHEN w > 0 THEN w * (o - base_rate) * (o - base_rate) ELSE 0 END)
       / CAST(NULLIF(SUM(w), 0) AS DOUBLE) AS brier_resolution
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
