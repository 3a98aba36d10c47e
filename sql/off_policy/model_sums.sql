-- model_sums: per slice Σ k·q̂ₑ, the reward model's value of the target policy
-- (q̂ₑ = Σₐ πₑ(a|x)·q̂(x, a), the role target_reward_model) summed over the rows, k the
-- row weight, which the direct method and the doubly robust estimators read; taken once
-- in base (sqlmetrics/metrics/off_policy/__init__.py).
--
-- reads:  base({{ by }}, n, w, ope_model_reward)
-- output: {{ by }}, w, ope_model_reward
SELECT {{ by }}, SUM(w) AS w, SUM(ope_model_reward) AS ope_model_reward
FROM base
WHERE n > 0
GROUP BY {{ by }}
