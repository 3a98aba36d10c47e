WITH base AS (
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
  SELECT
    "country" AS slice_1,
    score,
    label,
    CAST(SUM(n_all) AS Nullable(Int64)) AS n_all,
    CAST(SUM(n) AS Nullable(Int64)) AS n,
    SUM(w) AS w
  FROM "logs"."states"
  WHERE
    state_part = 'base'
  GROUP BY
    "country",
    score,
    label
), row_counts AS (
  /* row_counts: n_rows (used) and n_excluded per slice, the spine of the result */
  SELECT
    slice_1,
    CAST(COALESCE(SUM(n), 0) AS Nullable(Int64)) AS n_rows,
    CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS Nullable(Int64)) AS n_excluded
  FROM base
  GROUP BY
    slice_1
), q_gauc AS (
  SELECT
    "country" AS slice_1,
    query,
    MIN(value) AS value,
    MIN(weight) AS weight,
    CAST(COUNT(*) AS Nullable(Int64)) AS copies
  FROM "logs"."states"
  WHERE
    state_part = 'gauc'
  GROUP BY
    "country",
    query
), m_gauc AS (
  SELECT
    slice_1,
    SUM(weight * value) / CAST(nullIf(SUM(CASE WHEN NOT (
      value IS NULL
    ) THEN weight END), 0) AS Nullable(Float64)) AS gauc,
    CAST(COUNT(value) AS Nullable(Int64)) AS gauc_groups,
    CAST(COUNT(*) AS Nullable(Int64)) - CAST(COUNT(value) AS Nullable(Int64)) AS gauc_skipped
  FROM q_gauc
  GROUP BY
    slice_1
), state_metas AS (
  SELECT
    CASE
      WHEN (
        SELECT
          CAST(COUNT(DISTINCT state_meta) AS Nullable(Int64))
        FROM "logs"."states"
        WHERE
          state_part = 'meta'
      ) <> 1
      THEN CAST(materialize(
        'sqlmetrics: the states are not of one call: their meta rows hold ' || CAST((
          SELECT
            CAST(CAST(COUNT(DISTINCT state_meta) AS Nullable(Int64)) AS Nullable(Int64))
          FROM "logs"."states"
          WHERE
            state_part = 'meta'
        ) AS Nullable(String)) || ' distinct state_meta (none: not states; more: states of different calls, which do not merge); roll up the states of one call''s statement (sm.to_sql(..., state=True) with the same arguments)'
      ) AS Int32)
    END AS failure
), state_copies AS (
  SELECT
    state_id,
    CAST(COUNT(*) AS Nullable(Int64)) AS copies
  FROM "logs"."states"
  WHERE
    state_part = 'meta'
  GROUP BY
    state_id
  HAVING
    CAST(COUNT(*) AS Nullable(Int64)) > 1
), shared_slices AS (
  SELECT
    state_source,
    state_slice,
    MIN(state_id) AS one_id,
    MAX(state_id) AS other_id
  FROM "logs"."states"
  WHERE
    state_part = 'slices' AND NOT (
      state_source IS NULL
    )
  GROUP BY
    state_source,
    state_slice
  HAVING
    CAST(COUNT(DISTINCT state_id) AS Nullable(Int64)) > 1
), state_repeats AS (
  SELECT
    CASE
      WHEN NOT (
        state_metas.failure IS NULL
      )
      THEN NULL
      WHEN (
        SELECT
          CAST(COUNT(*) AS Nullable(Int64))
        FROM state_copies
      ) > 0
      THEN CAST(materialize(
        'sqlmetrics: ' || CAST((
          SELECT
            CAST(CAST(COUNT(*) AS Nullable(Int64)) AS Nullable(Int64))
          FROM state_copies
        ) AS Nullable(String)) || CASE
          WHEN (
            SELECT
              CAST(CAST(COUNT(*) AS Nullable(Int64)) AS Nullable(Int64))
            FROM state_copies
          ) = 1
          THEN ' state is held'
          ELSE ' states are held'
        END || ' more than once (a state''s id in more than one meta row), e.g. the state ' || (
          SELECT
            MIN(state_id || ' (held ' || CAST(copies AS Nullable(String)) || ' times)')
          FROM state_copies
        ) || ': its rows would be counted twice; keep each state once (a job''s rows INSERTed once)'
      ) AS Int32)
      WHEN (
        SELECT
          CAST(COUNT(*) AS Nullable(Int64))
        FROM shared_slices
      ) > 0
      THEN CAST(materialize(
        'sqlmetrics: two states cover the same rows: ' || CAST((
          SELECT
            CAST(CAST(COUNT(*) AS Nullable(Int64)) AS Nullable(Int64))
          FROM shared_slices
        ) AS Nullable(String)) || CASE
          WHEN (
            SELECT
              CAST(CAST(COUNT(*) AS Nullable(Int64)) AS Nullable(Int64))
            FROM shared_slices
          ) = 1
          THEN ' slice of a source is held'
          ELSE ' slices of a source are held'
        END || ' by more than one state, e.g. ' || (
          SELECT
            MIN(
              'the states ' || one_id || ' and ' || other_id || ' of the source ' || state_source || ' both hold the slice ' || state_slice
            )
          FROM shared_slices
        ) || '. Their rows would be counted twice (a job run twice, a source read again after it grew): keep one state per slice of a source, or slice each state by what tells its rows apart (the day)'
      ) AS Int32)
    END AS failure
  FROM state_metas
), query_repeats AS (
  SELECT
    CASE
      WHEN NOT (
        state_repeats.failure IS NULL
      )
      THEN NULL
      WHEN (
        SELECT
          CAST(COUNT(*) AS Nullable(Int64))
        FROM q_gauc
        WHERE
          copies > 1
      ) > 0
      THEN CAST(materialize(
        'sqlmetrics: gauc is a mean over queries, and a query''s value does not merge: ' || CAST((
          SELECT
            CAST(CAST(COUNT(*) AS Nullable(Int64)) AS Nullable(Int64))
          FROM q_gauc
          WHERE
            copies > 1
        ) AS Nullable(String)) || CASE
          WHEN (
            SELECT
              CAST(CAST(COUNT(*) AS Nullable(Int64)) AS Nullable(Int64))
            FROM q_gauc
            WHERE
              copies > 1
          ) = 1
          THEN ' query appears'
          ELSE ' queries appear'
        END || ' in more than one of the merged states or slices, e.g. query ' || (
          SELECT
            MIN(CAST(query AS Nullable(String)))
          FROM q_gauc
          WHERE
            copies > 1
        ) || '. Roll up only states whose queries do not recur (a query column unique per day, such as the user and the day together), or keep the slice that separates them in by='
      ) AS Int32)
    END AS failure
  FROM state_repeats
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS "country",
  row_counts.n_rows AS n_rows,
  row_counts.n_excluded AS n_excluded,
  m_auc.auc AS auc,
  m_logloss.logloss AS logloss,
  m_calibration.calibration AS calibration,
  m_f1.f1 AS f1,
  m_gauc.gauc AS gauc,
  COALESCE(m_gauc.gauc_groups, 0) AS gauc_groups,
  COALESCE(m_gauc.gauc_skipped, 0) AS gauc_skipped
FROM row_counts
LEFT JOIN m_auc
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_auc.slice_1
LEFT JOIN m_logloss
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_logloss.slice_1
LEFT JOIN m_calibration
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_calibration.slice_1
LEFT JOIN m_f1
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_f1.slice_1
LEFT JOIN m_gauc
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_gauc.slice_1
CROSS JOIN query_repeats
WHERE
  query_repeats.failure IS NULL
ORDER BY
  row_counts.slice_1 ASC
SETTINGS prefer_column_name_to_alias = 1, join_use_nulls = 1, aggregate_functions_null_for_empty = 1, short_circuit_function_evaluation = 'enable', query_plan_max_optimizations_to_apply = 1000000
