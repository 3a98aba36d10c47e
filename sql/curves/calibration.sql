-- calibration_curve: scikit-learn's calibration_curve(y, p, n_bins=bins, strategy=...),
-- one row per non-empty bin, weighted:
--   mean_score = Σ w·p / Σ w,  observed_rate = Σ w·y / Σ w  (NULL when Σ w = 0),
--   count = rows in the bin,  weight = Σ w.
-- The bins are the step calibration_bins (sql/intermediates/calibration_bins.sql, which
-- the metrics ece, brier_reliability, ... read too): numpy's edges to the last bit, a
-- score equal to an edge in the lower bin.
--
-- reads:  calibration_bins(bins, strategy, {{ by }}, bin, n, w, w_pos, w_score)
-- params: {{ bins }}, {{ strategy }} ('uniform' or 'quantile')
-- output: {{ by }}, bin, mean_score, observed_rate, count, weight
SELECT {{ by }}, CAST(bin AS BIGINT) AS bin,
       w_score / CAST(NULLIF(w, 0) AS DOUBLE) AS mean_score,
       w_pos / CAST(NULLIF(w, 0) AS DOUBLE) AS observed_rate,
       n AS count,
       w AS weight
FROM calibration_bins
WHERE bins = {{ bins }} AND strategy = {{ strategy }}
