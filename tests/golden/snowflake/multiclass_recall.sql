WITH input AS (
  SELECT
    "day" AS slice_1,
    "country" AS slice_2,
    "label" AS true_class,
    "predicted" AS predicted_class,
    CAST("weight" AS DOUBLE) AS weight,
    CASE
      WHEN "label" IS NULL OR "predicted" IS NULL OR "weight" IS NULL
      THEN NULL
      ELSE CAST("weight" AS DOUBLE)
    END AS w
  FROM "logs"."impressions"
), base AS (
  SELECT
    slice_1,
    slice_2,
    true_class,
    predicted_class,
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
    true_class,
    predicted_class
), checks AS (
  SELECT
    CASE
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
), class_confusion AS (
  SELECT
    slice_1,
    slice_2,
    true_class,
    predicted_class,
    CAST(SUM(n) AS BIGINT) AS n,
    SUM(w) AS w
  FROM base
  WHERE
    n > 0
  GROUP BY
    slice_1,
    slice_2,
    true_class,
    predicted_class
), class_counts AS (
  SELECT
    slice_1,
    slice_2,
    class,
    SUM(tp) AS tp,
    SUM(support) AS support,
    SUM(predicted) AS predicted
  FROM (
    SELECT
      slice_1,
      slice_2,
      true_class AS class,
      CASE WHEN true_class = predicted_class THEN w ELSE 0 END AS tp,
      w AS support,
      0 AS predicted
    FROM class_confusion
    UNION ALL
    SELECT
      slice_1,
      slice_2,
      predicted_class AS class,
      0 AS tp,
      0 AS support,
      w AS predicted
    FROM class_confusion
  ) AS sides
  GROUP BY
    slice_1,
    slice_2,
    class
), m_recall AS (
  SELECT
    slice_1,
    slice_2,
    CASE 'macro'
      WHEN 'macro'
      THEN AVG(tp / NULLIF(support, 0))
      ELSE SUM(tp) / NULLIF(SUM(support), 0)
    END AS recall
  FROM class_counts
  GROUP BY
    slice_1,
    slice_2
)
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows,
  row_counts.n_excluded,
  m_recall.recall AS recall
FROM row_counts
LEFT JOIN m_recall
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_recall.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_recall.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1,
  row_counts.slice_2
