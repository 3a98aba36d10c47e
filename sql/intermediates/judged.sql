-- judged: the relevance histogram of every list's judged items that earn gain (label > 0),
-- the ideal ranking's input. Impressions: a list's judged items are its own rows.
-- Judgments + run: every judged item of the list's query, retrieved or not.
-- Items of label 0 are left out: they earn no gain at any position and fill the ideal
-- order after every positive label, so the ideal DCG is the same without them (each
-- list's relevant and judged items are counted in list_floors).
--
-- reads:  ideal_rows({{ by }}, query, label)
-- output: {{ by }}, query, label, n
SELECT {{ by }}, query, label, COUNT(*) AS n
FROM ideal_rows
WHERE label > 0
GROUP BY {{ by }}, query, label
