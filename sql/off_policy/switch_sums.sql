-- switch_sums: per slice and cap λ in use, Σ k·1{w ≤ λ}·w·(r − q̂ₐ), the residual
-- weighted only where the importance weight is at most λ (switch_dr, obp's form); base
-- holds one such sum per cap (ope_switch_<cap>, sqlmetrics/metrics/off_policy/__init__.py),
-- and this step is rendered once per cap, the renders stacked.
--
-- reads:  base({{ by }}, n, ope_switch_<cap>)
-- params: {{ cap }} -- DOUBLE > 0
--         {{ key }} -- the cap as the suffix of base's column
-- output: {{ by }}, cap, ope_switch
SELECT {{ by }}, {{ cap }} AS cap, SUM(ope_switch_{{ key }}) AS ope_switch
FROM base
WHERE n > 0
GROUP BY {{ by }}
