-- importance_sums: per slice the sums of the importance weights w = πₑ/π₀ that ips,
-- snips and the diagnostics read, taken once in base (the off-policy family adds them
-- to it: sqlmetrics/metrics/off_policy/__init__.py), k the row weight, r the reward:
--   w                  Σ k                  (the rows, weighted)
--   ope_reward         Σ k·w·r
--   ope_weight         Σ k·w
--   ope_weight_squares Σ k·w²
--   ope_max_weight     max w   over rows of weight k > 0
--
-- reads:  base({{ by }}, n, w, ope_reward, ope_weight, ope_weight_squares, ope_max_weight)
-- output: {{ by }}, w, ope_reward, ope_weight, ope_weight_squares, ope_max_weight
SELECT {{ by }}, SUM(w) AS w, SUM(ope_reward) AS ope_reward, SUM(ope_weight) AS ope_weight,
       SUM(ope_weight_squares) AS ope_weight_squares, MAX(ope_max_weight) AS ope_max_weight
FROM base
WHERE n > 0
GROUP BY {{ by }}
