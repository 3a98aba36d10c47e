/* the state: base's rows, each mean over queries' rows, the meta row (state_part names the part) */
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
  CAST(NULL AS Nullable(String)) AS state_meta
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
  CAST(NULL AS Nullable(String)) AS state_meta
FROM q_gauc
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
  '{"by": ["day", "country"], "columns": {"item": null, "label": "label", "prediction": null, "query": "user_id", "score": "score", "weight": "weight"}, "format": "sqlmetrics.state", "judgments": false, "metrics": [{"metric": "auc", "params": {}}, {"metric": "logloss", "params": {}}, {"metric": "calibration", "params": {}}, {"metric": "f1", "params": {"threshold": 0.5}}, {"metric": "gauc", "params": {"weighting": "impressions"}}], "version": 2}' AS state_meta
SETTINGS prefer_column_name_to_alias = 1, join_use_nulls = 1, aggregate_functions_null_for_empty = 1, short_circuit_function_evaluation = 'enable', query_plan_max_optimizations_to_apply = 1000000
