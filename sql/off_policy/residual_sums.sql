-- residual_sums: per slice Σ k·w·(r − q̂ₐ), the importance-weighted residual of the
-- reward model (q̂ₐ its value of the logged action, the role reward_model) that the
-- doubly robust estimators add to the direct method's value; taken once in base
-- (sqlmetrics/metrics/off_policy/__init__.py).
--
-- reads:  base({{ by }}, n, ope_residual)
-- output: {{ by }}, ope_residual
SELECT {{ by }}, SUM(ope_residual) AS ope_residual
FROM base
WHERE n > 0
GROUP BY {{ by }}
