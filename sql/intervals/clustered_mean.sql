-- clustered_mean: each unit's part of a weighted mean of a row value (row_mean's
-- logloss, brier, ...; residual_mean's mae, mse, rmse, ...), for clustered.sql: the
-- influence of a row of value x = {{ value }} (over the rows where {{ where }}) on the
-- mean m is x − m, on a function of it slope·(x − m) (slope = {{ slope }}, SQL over
-- mean: rmse's 1/(2·√mse)), so a unit's part is
--   slope·(Σ_k w·x − m·Σ_k w) / W,
-- from the unit's sums (one pass over the rows, then one over the units).
--
-- reads:  input({{ by }}, unit_id, label, score, w)
-- output: {{ by }}, unit_id, part
SELECT {{ by }}, unit_id, ({{ slope }}) * (wx - mean * w) / CAST(total AS DOUBLE) AS part
FROM (
    SELECT {{ by }}, unit_id, w, wx, total, slice_wx / CAST(total AS DOUBLE) AS mean
    FROM (
        SELECT {{ by }}, unit_id, w, wx, SUM(w) OVER (PARTITION BY {{ by }}) AS total,
               SUM(wx) OVER (PARTITION BY {{ by }}) AS slice_wx
        FROM (
            SELECT {{ by }}, unit_id, SUM(w) AS w, SUM(w * ({{ value }})) AS wx
            FROM input
            WHERE w IS NOT NULL AND ({{ where }})
            GROUP BY {{ by }}, unit_id
        ) AS units
    ) AS totalled
    WHERE total > 0
) AS centred
