-- clipped_sums: per slice and cap λ in use, Σ k·min(w, λ)·r, the reward weighted by the
-- importance weight clipped at λ (clipped_ips); base holds one such sum per cap
-- (ope_clipped_<cap>, sqlmetrics/metrics/off_policy/__init__.py), and this step is
-- rendered once per cap, the renders stacked.
--
-- reads:  base({{ by }}, n, w, ope_clipped_<cap>)
-- params: {{ cap }} -- DOUBLE > 0
--         {{ key }} -- the cap as the suffix of base's column
-- output: {{ by }}, cap, w, ope_clipped
SELECT {{ by }}, {{ cap }} AS cap, SUM(w) AS w, SUM(ope_clipped_{{ key }}) AS ope_clipped
FROM base
WHERE n > 0
GROUP BY {{ by }}
