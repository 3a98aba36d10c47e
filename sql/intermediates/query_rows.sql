-- query_rows: the used rows of the source with their query, as positive and negative
-- weight. Read by the metrics that sort within each query (gauc): sorting the rows of
-- each query is cheaper than first building a query x score histogram.
--
-- reads:  input({{ by }}, query, score, label, w)  -- w is NULL for an excluded row
-- output: {{ by }}, query, score, w_pos, w_neg
SELECT {{ by }}, query, score,
       CASE WHEN label = 1 THEN w ELSE 0 END AS w_pos,
       CASE WHEN label = 1 THEN 0 ELSE w END AS w_neg
FROM input
WHERE w IS NOT NULL
