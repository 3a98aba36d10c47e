/* the state: base's rows, each mean over queries' rows, the meta row (state_part names the part) */
SELECT
  parts.state_part AS state_part,
  parts."day" AS "day",
  parts."country" AS "country",
  parts.score AS score,
  parts.label AS label,
  parts.n_all AS n_all,
  parts.n AS n,
  parts.w AS w,
  parts.query AS query,
  parts.value AS value,
  parts.weight AS weight,
  parts.state_meta AS state_meta,
  parts.state_slice AS state_slice,
  CASE WHEN parts.state_part IN ('meta', 'slices') THEN run.state_id END AS state_id,
  CASE
    WHEN parts.state_part IN ('meta', 'slices')
    THEN CAST('logs.states' AS Nullable(String))
  END AS state_source
FROM (
  SELECT
    'base' AS state_part,
    base.slice_1 AS "day",
    base.slice_2 AS "country",
    base.score AS score,
    base.label AS label,
    base.n_all AS n_all,
    base.n AS n,
    base.w AS w,
    NULL AS query,
    CAST(NULL AS Nullable(Float64)) AS value,
    CAST(NULL AS Nullable(Float64)) AS weight,
    CAST(NULL AS Nullable(String)) AS state_meta,
    CAST(NULL AS Nullable(String)) AS state_slice
  FROM base
  CROSS JOIN checks
  WHERE
    checks.failure IS NULL
  UNION ALL
  SELECT
    'gauc' AS state_part,
    q_gauc.slice_1 AS "day",
    q_gauc.slice_2 AS "country",
    CAST(NULL AS Nullable(Float64)) AS score,
    CAST(NULL AS Nullable(Float64)) AS label,
    NULL AS n_all,
    NULL AS n,
    CAST(NULL AS Nullable(Float64)) AS w,
    q_gauc.query AS query,
    q_gauc.value AS value,
    q_gauc.weight AS weight,
    CAST(NULL AS Nullable(String)) AS state_meta,
    CAST(NULL AS Nullable(String)) AS state_slice
  FROM q_gauc
  UNION ALL
  SELECT
    'slices' AS state_part,
    kept_slices.slice_1 AS "day",
    kept_slices.slice_2 AS "country",
    CAST(NULL AS Nullable(Float64)) AS score,
    CAST(NULL AS Nullable(Float64)) AS label,
    NULL AS n_all,
    NULL AS n,
    CAST(NULL AS Nullable(Float64)) AS w,
    NULL AS query,
    CAST(NULL AS Nullable(Float64)) AS value,
    CAST(NULL AS Nullable(Float64)) AS weight,
    CAST(NULL AS Nullable(String)) AS state_meta,
    'day=' || COALESCE('"' || REPLACE(CAST(slice_1 AS Nullable(String)), '"', '""') || '"', 'NULL') || ', country=' || COALESCE('"' || REPLACE(CAST(slice_2 AS Nullable(String)), '"', '""') || '"', 'NULL') AS state_slice
  FROM (
    SELECT DISTINCT
      slice_1,
      slice_2
    FROM base
  ) AS kept_slices
  UNION ALL
  SELECT
    'meta' AS state_part,
    NULL AS "day",
    NULL AS "country",
    CAST(NULL AS Nullable(Float64)) AS score,
    CAST(NULL AS Nullable(Float64)) AS label,
    NULL AS n_all,
    NULL AS n,
    CAST(NULL AS Nullable(Float64)) AS w,
    NULL AS query,
    CAST(NULL AS Nullable(Float64)) AS value,
    CAST(NULL AS Nullable(Float64)) AS weight,
    '{"by": ["day", "country"], "columns": {"item": null, "label": "label", "prediction": null, "query": "user_id", "score": "score", "weight": "weight"}, "format": "sqlmetrics.state", "judgments": false, "metrics": [{"metric": "auc", "params": {}}, {"metric": "logloss", "params": {}}, {"metric": "calibration", "params": {}}, {"metric": "f1", "params": {"threshold": 0.5}}, {"metric": "gauc", "params": {"weighting": "impressions"}}], "version": 3}' AS state_meta,
    CAST(NULL AS Nullable(String)) AS state_slice
) AS parts
CROSS JOIN (
  SELECT
    CAST(generateUUIDv4() AS Nullable(String)) AS state_id
) AS run
SETTINGS prefer_column_name_to_alias = 1, join_use_nulls = 1, aggregate_functions_null_for_empty = 1, short_circuit_function_evaluation = 'enable', query_plan_max_optimizations_to_apply = 1000000
