-- clustered_histogram_delta: each unit's part of a smooth function f of a few weighted
-- means over the rows (histogram_delta's calibration), for clustered.sql: a row's
-- influence ({{ positive }} for a positive row, {{ negative }} for a negative one, SQL
-- over score and the slice's means {{ means }}) summed over the unit's rows, over W,
-- from each unit's histogram of scores (its positive and negative weight per score).
--
-- reads:  input({{ by }}, unit_id, label, score, w), score_hist({{ by }}, score, w_pos, w_neg)
-- output: {{ by }}, unit_id, part
SELECT {{ by(h) }}, h.unit_id,
       (h.w_pos * ({{ positive }}) + h.w_neg * ({{ negative }})) / CAST(m.total AS DOUBLE) AS part
FROM (
    SELECT {{ by }}, unit_id, score, SUM(CASE WHEN label = 1 THEN w ELSE 0 END) AS w_pos,
           SUM(CASE WHEN label = 1 THEN 0 ELSE w END) AS w_neg
    FROM input
    WHERE w IS NOT NULL
    GROUP BY {{ by }}, unit_id, score
) AS h
JOIN (
    SELECT {{ by }}, SUM(w_pos + w_neg) AS total, {{ means }}
    FROM score_hist
    GROUP BY {{ by }}
    HAVING SUM(w_pos + w_neg) > 0
) AS m ON {{ same_slice(h, m) }}
