-- judged: the relevance histogram of every list's judged items, the ideal ranking's
-- input. Impressions: a list's judged items are its own rows. Judgments + run: every
-- judged item of the list's query, retrieved or not (a list without judgments has none).
--
-- reads:  ideal_rows({{ by }}, query, label)
-- output: {{ by }}, query, label, n
SELECT {{ by }}, query, label, COUNT(*) AS n
FROM ideal_rows
GROUP BY {{ by }}, query, label
