-- logloss_uncertainty: logloss's uncertainty in the decomposition of the log score, the
-- entropy (nats) of the slice's positive rate ō = Σ w·y / Σ w: −ō·ln ō − (1 − ō)·ln(1 − ō)
-- (1 − ō taken as Σ w·(1 − y) / Σ w; 0·ln 0 = 0), the logloss of predicting the base
-- rate, the same for every binning (ne divides by it). NULL when the slice's weight is 0.
--
-- reads:  score_hist({{ by }}, w_pos, w_neg)
-- output: {{ by }}, logloss_uncertainty
SELECT {{ by }},
       CASE WHEN o > 0 THEN -o * LN(o) WHEN o = 0 THEN 0 END
       + CASE WHEN q > 0 THEN -q * LN(q) WHEN q = 0 THEN 0 END AS logloss_uncertainty
FROM (
    SELECT {{ by }},
           SUM(w_pos) / CAST(NULLIF(SUM(w_pos + w_neg), 0) AS DOUBLE) AS o,
           SUM(w_neg) / CAST(NULLIF(SUM(w_pos + w_neg), 0) AS DOUBLE) AS q
    FROM score_hist
    GROUP BY {{ by }}
) AS rates
