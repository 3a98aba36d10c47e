-- cohen_kappa: Cohen's kappa of predicted and true classes (scikit-learn's unweighted
-- cohen_kappa_score):
--   κ = (p_o − p_e) / (1 − p_e) = (c·n − Σ_k t_k·p_k) / (n² − Σ_k t_k·p_k)
-- with p_o = c / n the observed agreement, p_e = Σ_k t_k·p_k / n² the agreement expected
-- by chance, n the total weight, c = Σ tp, t_k = support and p_k = predicted weight of
-- class k. NULL when a single class carries all the weight on both sides (1 − p_e = 0;
-- scikit-learn returns nan) and on an empty slice.
--
-- reads:  class_counts({{ by }}, class, tp, support, predicted)
-- output: {{ by }}, cohen_kappa
WITH totals AS (
    SELECT {{ by }}, SUM(support) AS n, SUM(tp) AS correct, SUM(support * predicted) AS chance,
           COUNT(CASE WHEN support > 0 OR predicted > 0 THEN 1 END) AS classes
    FROM class_counts
    GROUP BY {{ by }}
)
SELECT {{ by }},
       CASE WHEN classes > 1 THEN (correct * n - chance) / (n * n - chance) END AS cohen_kappa
FROM totals
