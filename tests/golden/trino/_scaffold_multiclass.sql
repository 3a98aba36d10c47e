WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
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
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
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
          weight < 0 OR IS_NAN(weight) OR IS_INFINITE(weight)
        )
        THEN 1
        ELSE 0
      END
    ) AS n_bad_weight,
    MIN(
      CASE WHEN (
        weight < 0 OR IS_NAN(weight) OR IS_INFINITE(weight)
      ) THEN weight END
    ) AS bad_weight
  FROM input
  GROUP BY
    slice_1,
    slice_2,
    true_class,
    predicted_class
), checks AS (
  /* checks: the input rules; error() refuses the query with the first rule the data breaks */
  SELECT
    CASE
      WHEN SUM(n_bad_weight) > 0
      THEN FAIL(
        CONCAT(
          CAST('sqlmetrics: weight column ''weight'' must be finite and >= 0: ' AS VARCHAR),
          CAST(SUM(n_bad_weight) AS VARCHAR),
          CAST(CASE WHEN SUM(n_bad_weight) = 1 THEN ' row is not' ELSE ' rows are not' END AS VARCHAR),
          CAST(', e.g. ' AS VARCHAR),
          CAST(CASE
            WHEN MIN(bad_weight) = ROUND(MIN(bad_weight)) AND ABS(MIN(bad_weight)) < 1e+15
            THEN CAST(CAST(MIN(bad_weight) AS BIGINT) AS VARCHAR)
            ELSE CAST(MIN(bad_weight) AS VARCHAR)
          END AS VARCHAR)
        )
      )
      WHEN (
        SELECT
          MAX(total)
        FROM (
          SELECT
            SUM(w) AS total
          FROM base
          GROUP BY
            slice_1,
            slice_2
        ) AS slice_weights
      ) >= CAST(1e+308 AS DOUBLE)
      THEN FAIL(
        CONCAT(
          CAST('sqlmetrics: column ''weight'': the weights of a slice sum to more than 1e+308 (' AS VARCHAR),
          CAST((
            SELECT
              MAX(total)
            FROM (
              SELECT
                SUM(w) AS total
              FROM base
              GROUP BY
                slice_1,
                slice_2
            ) AS slice_weights
          ) AS VARCHAR),
          CAST('), beyond the float range; rescale them (e.g. divide the column by its largest value): every metric but the weighted counts is unchanged by a common factor' AS VARCHAR)
        )
      )
    END AS failure
  FROM base
), row_counts AS (
  /* row_counts: n_rows (used) and n_excluded per slice, the spine of the result */
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
  /* class_confusion: the weighted confusion matrix of each slice, one row per pair of */
  /* true class and predicted class that occurs in the used rows (a pair of rows that all */
  /* weigh 0 still occurs: its classes are present, as in scikit-learn). Classes are */
  /* compared as they are (numbers, strings or booleans), never cast. */
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
  /* class_counts: per slice and class, the weights every multi-class metric is computed */
  /* from (scikit-learn's multilabel_confusion_matrix): */
  /*   tp         Σ w over rows whose true and predicted class are both this class */
  /*   support    Σ w over rows whose true class is this class */
  /*   predicted  Σ w over rows predicted as this class */
  /* The classes of a slice are those present as a label or as a prediction: a class that */
  /* is only ever predicted has support 0 (each of its predictions a false positive), a */
  /* class never predicted has predicted 0. */
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
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows,
  row_counts.n_excluded,
  m_cohen_kappa.cohen_kappa AS cohen_kappa,
  m_accuracy.accuracy AS accuracy,
  m_balanced_accuracy.balanced_accuracy AS balanced_accuracy,
  m_f1.f1 AS f1,
  m_fbeta.fbeta AS fbeta,
  m_mcc.mcc AS mcc,
  m_precision.precision AS precision,
  m_recall.recall AS recall
FROM row_counts
LEFT JOIN m_cohen_kappa
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_cohen_kappa.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_cohen_kappa.slice_2
LEFT JOIN m_accuracy
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_accuracy.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_accuracy.slice_2
LEFT JOIN m_balanced_accuracy
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_balanced_accuracy.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_balanced_accuracy.slice_2
LEFT JOIN m_f1
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_f1.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_f1.slice_2
LEFT JOIN m_fbeta
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_fbeta.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_fbeta.slice_2
LEFT JOIN m_mcc
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_mcc.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_mcc.slice_2
LEFT JOIN m_precision
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_precision.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_precision.slice_2
LEFT JOIN m_recall
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_recall.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_recall.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1 ASC,
  row_counts.slice_2 ASC
