-- shrunk_sums: per slice and shrinkage λ in use, Σ k·(λw / (w² + λ))·(r − q̂ₐ), the
-- residual weighted by the importance weight shrunk towards 0 (dr_os); base holds one
-- such sum per λ (ope_shrunk_<λ>, sqlmetrics/metrics/off_policy/__init__.py), and this
-- step is rendered once per λ, the renders stacked.
--
-- reads:  base({{ by }}, n, ope_shrunk_<shrinkage>)
-- params: {{ shrinkage }} -- DOUBLE > 0
--         {{ key }} -- λ as the suffix of base's column
-- output: {{ by }}, shrinkage, ope_shrunk
SELECT {{ by }}, {{ shrinkage }} AS shrinkage, SUM(ope_shrunk_{{ key }}) AS ope_shrunk
FROM base
WHERE n > 0
GROUP BY {{ by }}
