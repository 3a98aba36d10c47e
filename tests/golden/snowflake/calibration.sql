WITH input AS (
  SELECT
    "day" AS slice_1,
    "country" AS slice_2,
    CAST("label" AS DOUBLE) AS label,
    CAST("score" AS DOUBLE) AS score,
    CAST("weight" AS DOUBLE) AS weight,
    CASE
      WHEN "label" IS NULL OR "score" IS NULL OR "weight" IS NULL
      THEN NULL
      ELSE CAST("weight" AS DOUBLE)
    END AS w
  FROM "logs"."impressions"
), base AS (
  SELECT
    slice_1,
    slice_2,
    score,
    label,
    COUNT(*) AS n_all,
    COUNT(w) AS n,
    SUM(w) AS w,
    SUM(
      CASE
        WHEN (
          weight < 0
          OR weight = CAST('NaN' AS DOUBLE)
          OR ABS(weight) = CAST('inf' AS DOUBLE)
        )
        THEN 1
        ELSE 0
      END
    ) AS n_bad_weight,
    MIN(
      CASE
        WHEN (
          weight < 0
          OR weight = CAST('NaN' AS DOUBLE)
          OR ABS(weight) = CAST('inf' AS DOUBLE)
        )
        THEN weight
      END
    ) AS bad_weight
  FROM input
  GROUP BY
    slice_1,
    slice_2,
    score,
    label
), checks AS (
  SELECT
    CASE
      WHEN SUM(CASE WHEN NOT label IN (0, 1) THEN n_all ELSE 0 END) > 0
      THEN CAST('sqlmetrics: label column \'label\' must be 0 or 1 (or boolean) (for calibration): ' || CAST(SUM(CASE WHEN NOT label IN (0, 1) THEN n_all ELSE 0 END) AS VARCHAR) || ' rows are not, e.g. ' || CAST(MIN(CASE WHEN NOT label IN (0, 1) THEN label END) AS VARCHAR) AS INT)
      WHEN SUM(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN n_all ELSE 0 END) > 0
      THEN CAST('sqlmetrics: score column \'score\' must not be NaN: ' || CAST(SUM(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN n_all ELSE 0 END) AS VARCHAR) || ' rows are not, e.g. ' || CAST(MIN(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN score END) AS VARCHAR) AS INT)
      WHEN SUM(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN n_all ELSE 0 END) > 0
      THEN CAST('sqlmetrics: score column \'score\' must be finite (for calibration): ' || CAST(SUM(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN n_all ELSE 0 END) AS VARCHAR) || ' rows are not, e.g. ' || CAST(MIN(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN score END) AS VARCHAR) AS INT)
      WHEN SUM(n_bad_weight) > 0
      THEN CAST('sqlmetrics: weight column \'weight\' must be finite and >= 0: ' || CAST(SUM(n_bad_weight) AS VARCHAR) || ' rows are not, e.g. ' || CAST(MIN(bad_weight) AS VARCHAR) AS INT)
    END AS failure
  FROM base
), row_counts AS (
  SELECT
    slice_1,
    slice_2,
    CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n_rows,
    CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS BIGINT) AS n_excluded
  FROM base
  GROUP BY
    slice_1,
    slice_2
), score_hist AS (
  SELECT
    slice_1,
    slice_2,
    score,
    n,
    CASE WHEN label = 1 THEN w ELSE 0 END AS w_pos,
    CASE WHEN label = 1 THEN 0 ELSE w END AS w_neg
  FROM base
  WHERE
    n > 0
), m_calibration AS (
  SELECT
    slice_1,
    slice_2,
    SUM((
      w_pos + w_neg
    ) * score) / NULLIF(SUM(w_pos), 0) AS calibration
  FROM score_hist
  GROUP BY
    slice_1,
    slice_2
)
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows,
  row_counts.n_excluded,
  m_calibration.calibration AS calibration
FROM row_counts
LEFT JOIN m_calibration
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_calibration.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_calibration.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1,
  row_counts.slice_2
