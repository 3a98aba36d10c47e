/* the state: base's rows, each mean over queries' rows, the meta row (state_part names the part) */
SELECT
  parts.state_part,
  parts."day" AS "day",
  parts."country" AS "country",
  parts.score,
  parts.label,
  parts.n_all,
  parts.n,
  parts.w,
  parts.query,
  parts.value,
  parts.weight,
  parts.state_meta,
  parts.state_slice,
  CASE WHEN parts.state_part IN ('meta', 'slices') THEN run.state_id END AS state_id,
  CASE
    WHEN parts.state_part IN ('meta', 'slices')
    THEN CAST('logs.states' AS VARCHAR)
  END AS state_source
FROM (
  SELECT
    'base' AS state_part,
    base.slice_1 AS "day",
    base.slice_2 AS "country",
    base.score,
    base.label,
    base.n_all,
    base.n,
    base.w,
    NULL AS query,
    CAST(NULL AS DOUBLE) AS value,
    CAST(NULL AS DOUBLE) AS weight,
    CAST(NULL AS VARCHAR) AS state_meta,
    CAST(NULL AS VARCHAR) AS state_slice
  FROM base
  CROSS JOIN checks
  WHERE
    checks.failure IS NULL
  UNION ALL
  SELECT
    'gauc' AS state_part,
    q_gauc.slice_1 AS "day",
    q_gauc.slice_2 AS "country",
    CAST(NULL AS DOUBLE) AS score,
    CAST(NULL AS DOUBLE) AS label,
    NULL AS n_all,
    NULL AS n,
    CAST(NULL AS DOUBLE) AS w,
    q_gauc.query,
    q_gauc.value,
    q_gauc.weight,
    CAST(NULL AS VARCHAR) AS state_meta,
    CAST(NULL AS VARCHAR) AS state_slice
  FROM q_gauc
  UNION ALL
  SELECT
    'slices' AS state_part,
    kept_slices.slice_1 AS "day",
    kept_slices.slice_2 AS "country",
    CAST(NULL AS DOUBLE) AS score,
    CAST(NULL AS DOUBLE) AS label,
    NULL AS n_all,
    NULL AS n,
    CAST(NULL AS DOUBLE) AS w,
    NULL AS query,
    CAST(NULL AS DOUBLE) AS value,
    CAST(NULL AS DOUBLE) AS weight,
    CAST(NULL AS VARCHAR) AS state_meta,
    CONCAT(
      CAST('day=' AS VARCHAR),
      CAST(COALESCE(
        CONCAT(
          CAST('"' AS VARCHAR),
          CAST(REPLACE(CAST(slice_1 AS VARCHAR), '"', '""') AS VARCHAR),
          CAST('"' AS VARCHAR)
        ),
        'NULL'
      ) AS VARCHAR),
      CAST(', country=' AS VARCHAR),
      CAST(COALESCE(
        CONCAT(
          CAST('"' AS VARCHAR),
          CAST(REPLACE(CAST(slice_2 AS VARCHAR), '"', '""') AS VARCHAR),
          CAST('"' AS VARCHAR)
        ),
        'NULL'
      ) AS VARCHAR)
    ) AS state_slice
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
    CAST(NULL AS DOUBLE) AS score,
    CAST(NULL AS DOUBLE) AS label,
    NULL AS n_all,
    NULL AS n,
    CAST(NULL AS DOUBLE) AS w,
    NULL AS query,
    CAST(NULL AS DOUBLE) AS value,
    CAST(NULL AS DOUBLE) AS weight,
    '{"by": ["day", "country"], "columns": {"item": null, "label": "label", "prediction": null, "query": "user_id", "score": "score", "weight": "weight"}, "format": "sqlmetrics.state", "judgments": false, "metrics": [{"metric": "auc", "params": {}}, {"metric": "logloss", "params": {}}, {"metric": "calibration", "params": {}}, {"metric": "f1", "params": {"threshold": 0.5}}, {"metric": "gauc", "params": {"weighting": "impressions"}}], "version": 3}' AS state_meta,
    CAST(NULL AS VARCHAR) AS state_slice
) AS parts
CROSS JOIN (
  SELECT
    CAST(UUID() AS VARCHAR) AS state_id
) AS run
