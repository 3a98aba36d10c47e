-- clustered_paired: each unit's part of the difference of a metric under two paired
-- scores (sm.compare(scores=...) clustered by ci_unit), for clustered.sql: the parts of
-- the metric's linearization under each score (each about its own metric: the slice
-- {{ pair }} says which score, 1 or 2), the first's negated, so that a unit's parts sum
-- to its part of the difference,
--   d_k = s_k,2 − s_k,1,   se² = C/(C − 1) · Σ_k d_k²,
-- var₁ + var₂ − 2·cov over the units. Given on the rows of the second score.
--
-- reads:  the influences' parts under both scores ({{ by }}, unit_id, part)
-- output: {{ by }} (the pair's slice 2), unit_id, part
SELECT {{ on_second }}, unit_id, CASE WHEN {{ pair }} = 2 THEN part ELSE -part END AS part
FROM (
{{ influences }}
) AS influences
