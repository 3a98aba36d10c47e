-- clustered: the standard error of a metric clustered by a unit column (ci_unit=):
-- rows of a unit may be correlated (a user's impressions), units are independent. The
-- metric's error is, to first order, the weighted mean of its rows' influences u (the
-- delta method's linearization: Σ w·u = 0 over the slice), so with each unit's part
-- s_k = Σ_{i in k} w_i·u_i / W ({{ influences }}, the method's) and C units,
--   se² = C / (C − 1) · Σ_k s_k²,
-- the linearization (sandwich) variance of survey statistics and cluster-robust
-- standard errors. With every row its own unit it is the unclustered interval (up to
-- W/(W − 1)). Normal interval; NULL unless the slice has two units or more, and where
-- an influence is undefined.
--
-- reads:  the influences' parts ({{ by }}, unit_id, part)
-- output: {{ by }}, se, df (NULL: the normal interval)
SELECT {{ by }},
       CASE WHEN COUNT(s) = COUNT(*)
            THEN SQRT(CAST(COUNT(*) AS DOUBLE) / CAST(COUNT(*) - 1 AS DOUBLE) * SUM(s * s)) END AS se,
       CAST(NULL AS BIGINT) AS df
FROM (
    SELECT {{ by }}, unit_id, CASE WHEN COUNT(part) = COUNT(*) THEN SUM(part) END AS s
    FROM (
{{ influences }}
    ) AS influences
    GROUP BY {{ by }}, unit_id
) AS units
GROUP BY {{ by }}
HAVING COUNT(*) > 1
