WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
  SELECT
    "day" AS slice_1,
    "country" AS slice_2,
    "label" AS true_class,
    CAST("p_cat" AS Nullable(Float64)) AS class_score_1,
    CAST("p_dog" AS Nullable(Float64)) AS class_score_2,
    CAST("p_fox" AS Nullable(Float64)) AS class_score_3,
    CAST("weight" AS Nullable(Float64)) AS weight,
    CASE
      WHEN "label" IS NULL
      OR "weight" IS NULL
      OR "p_cat" IS NULL
      OR "p_dog" IS NULL
      OR "p_fox" IS NULL
      THEN NULL
      ELSE CAST("weight" AS Nullable(Float64))
    END AS w
  FROM "logs"."impressions"
), base AS (
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
  SELECT
    slice_1,
    slice_2,
    true_class,
    CAST(COUNT(*) AS Nullable(Int64)) AS n_all,
    CAST(COUNT(w) AS Nullable(Int64)) AS n,
    SUM(w) AS w,
    SUM(
      CASE WHEN (
        weight < 0 OR isNaN(weight) OR isInfinite(weight)
      ) THEN 1 ELSE 0 END
    ) AS n_bad_weight,
    MIN(
      CASE WHEN (
        weight < 0 OR isNaN(weight) OR isInfinite(weight)
      ) THEN weight END
    ) AS bad_weight
  FROM input
  GROUP BY
    slice_1,
    slice_2,
    true_class
), checks AS (
  /* checks: the input rules; error() refuses the query with the first rule the data breaks */
  SELECT
    CASE
      WHEN SUM(n_bad_weight) > 0
      THEN CAST(materialize(
        'sqlmetrics: weight column ''weight'' must be finite and >= 0: ' || CAST(SUM(n_bad_weight) AS Nullable(String)) || CASE WHEN SUM(n_bad_weight) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_weight) = ROUND(MIN(bad_weight))
          AND GREATEST(MIN(bad_weight), -(
            MIN(bad_weight)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_weight) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_weight) AS Nullable(String))
        END
      ) AS Int32)
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
      ) >= CAST(1e+308 AS Nullable(Float64))
      THEN CAST(materialize(
        'sqlmetrics: column ''weight'': the weights of a slice sum to more than 1e+308 (' || CAST((
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
        ) AS Nullable(String)) || '), beyond the float range; rescale them (e.g. divide the column by its largest value): every metric but the weighted counts is unchanged by a common factor'
      ) AS Int32)
    END AS failure
  FROM base
), row_counts AS (
  /* row_counts: n_rows (used) and n_excluded per slice, the spine of the result */
  SELECT
    slice_1,
    slice_2,
    CAST(COALESCE(SUM(n), 0) AS Nullable(Int64)) AS n_rows,
    CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS Nullable(Int64)) AS n_excluded
  FROM base
  GROUP BY
    slice_1,
    slice_2
), class_score_rows AS (
  /* class_score_rows: one row per used row and class, with the class's score */
  SELECT
    slice_1,
    slice_2,
    c.class AS class,
    CASE c.i
      WHEN 1
      THEN class_score_1
      WHEN 2
      THEN class_score_2
      WHEN 3
      THEN class_score_3
    END AS score,
    true_class,
    w
  FROM input
  CROSS JOIN (
    SELECT
      1 AS i,
      'cat' AS class
    UNION ALL
    SELECT
      2,
      'dog'
    UNION ALL
    SELECT
      3,
      'fox'
  ) AS c
  WHERE
    NOT (
      w IS NULL
    )
), class_score_hist AS (
  /* class_score_hist: the one-vs-rest score histograms, one per slice and class: per */
  /* distinct score of the class, the weight of the rows whose true class is that class */
  /* (w_pos, the class's positives) and of the others (w_neg, its negatives), and the */
  /* rows (n). Each class's histogram is score_hist of the binary problem "this class */
  /* or not", so the binary formulas run on it partitioned by slice and class. */
  SELECT
    slice_1,
    slice_2,
    class,
    score,
    CAST(COUNT(*) AS Nullable(Int64)) AS n,
    SUM(CASE WHEN true_class = class THEN w ELSE 0 END) AS w_pos,
    SUM(CASE WHEN true_class = class THEN 0 ELSE w END) AS w_neg
  FROM class_score_rows
  GROUP BY
    slice_1,
    slice_2,
    class,
    score
), class_score_cum AS (
  /* score_cum: the confusion counts at every entry of a score histogram (hist), for */
  /* the metrics that walk the scores in order (auc, average_precision, their one-vs-rest */
  /* forms per class, the median of the errors): tp and fp, the weight of the positives */
  /* and of the negatives scoring at or above the entry's score (predicting "score >= s" */
  /* positive). The RANGE frames take every entry of a tied score together, so all entries */
  /* of a score have its tp and fp. One sort per slice, shared by the metrics. (Engines */
  /* that spread rows over workers read score_cum_distributed.sql instead.) */
  SELECT
    slice_1,
    slice_2,
    class,
    score,
    w_pos,
    w_neg,
    tp,
    fp,
    tie_pos,
    tie_neg,
    tp + fp - tie_pos - tie_neg + 1 AS rank_from,
    tp + fp AS rank_to,
    pos_total,
    neg_total
  FROM (
    SELECT
      slice_1,
      slice_2,
      class,
      score,
      w_pos,
      w_neg,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2, class
        ORDER BY score DESC
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS tp,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2, class
        ORDER BY score DESC
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS fp,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2, class
        ORDER BY score DESC
        RANGE BETWEEN CURRENT ROW AND CURRENT ROW
      ) AS tie_pos,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2, class
        ORDER BY score DESC
        RANGE BETWEEN CURRENT ROW AND CURRENT ROW
      ) AS tie_neg,
      SUM(w_pos) OVER (PARTITION BY slice_1, slice_2, class) AS pos_total,
      SUM(w_neg) OVER (PARTITION BY slice_1, slice_2, class) AS neg_total
    FROM class_score_hist
  ) AS cumulative
), class_nan AS (
  /* class_nan: per class, the rows whose class score is NaN */
  SELECT
    class,
    CAST(SUM(n) AS Nullable(Int64)) AS n
  FROM class_score_hist
  WHERE
    isNaN(score)
  GROUP BY
    class
), class_checks AS (
  /* class_checks: the class-score rules; error() refuses the query with the first one broken */
  SELECT
    CASE
      WHEN label_unscored.n > 0
      THEN CAST(materialize(
        'sqlmetrics: label column ''label'' must hold one of the classes of class_scores: ' || CAST(label_unscored.n AS Nullable(String)) || CASE WHEN label_unscored.n = 1 THEN ' row does not' ELSE ' rows do not' END || ', e.g. ' || CAST(label_unscored.e AS Nullable(String))
      ) AS Int32)
      WHEN nan_1.n > 0
      THEN CAST(materialize(
        'sqlmetrics: class score column ''p_cat'' (class ''cat'') must not be NaN: ' || CAST(nan_1.n AS Nullable(String)) || CASE WHEN nan_1.n = 1 THEN ' row is not' ELSE ' rows are not' END || '' || CAST(nan_1.e AS Nullable(String))
      ) AS Int32)
      WHEN nan_2.n > 0
      THEN CAST(materialize(
        'sqlmetrics: class score column ''p_dog'' (class ''dog'') must not be NaN: ' || CAST(nan_2.n AS Nullable(String)) || CASE WHEN nan_2.n = 1 THEN ' row is not' ELSE ' rows are not' END || '' || CAST(nan_2.e AS Nullable(String))
      ) AS Int32)
      WHEN nan_3.n > 0
      THEN CAST(materialize(
        'sqlmetrics: class score column ''p_fox'' (class ''fox'') must not be NaN: ' || CAST(nan_3.n AS Nullable(String)) || CASE WHEN nan_3.n = 1 THEN ' row is not' ELSE ' rows are not' END || '' || CAST(nan_3.e AS Nullable(String))
      ) AS Int32)
    END AS failure
  FROM (
    SELECT
      COALESCE(SUM(n), 0) AS n,
      MIN(CAST(true_class AS Nullable(String))) AS e
    FROM base
    WHERE
      n > 0 AND NOT (
        true_class IN ('cat', 'dog', 'fox')
      )
  ) AS label_unscored
  CROSS JOIN (
    SELECT
      COALESCE(SUM(n), 0) AS n,
      '' AS e
    FROM class_nan
    WHERE
      class = 'cat'
  ) AS nan_1
  CROSS JOIN (
    SELECT
      COALESCE(SUM(n), 0) AS n,
      '' AS e
    FROM class_nan
    WHERE
      class = 'dog'
  ) AS nan_2
  CROSS JOIN (
    SELECT
      COALESCE(SUM(n), 0) AS n,
      '' AS e
    FROM class_nan
    WHERE
      class = 'fox'
  ) AS nan_3
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows AS n_rows,
  row_counts.n_excluded AS n_excluded,
  m_auc.auc AS auc,
  COALESCE(m_auc.auc_classes, 0) AS auc_classes,
  COALESCE(m_auc.auc_skipped, 0) AS auc_skipped,
  m_average_precision.average_precision AS average_precision,
  COALESCE(m_average_precision.average_precision_classes, 0) AS average_precision_classes,
  COALESCE(m_average_precision.average_precision_skipped, 0) AS average_precision_skipped
FROM row_counts
LEFT JOIN m_auc
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_auc.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_auc.slice_2
LEFT JOIN m_average_precision
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_average_precision.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_average_precision.slice_2
CROSS JOIN checks
CROSS JOIN class_checks
WHERE
  checks.failure IS NULL AND class_checks.failure IS NULL
ORDER BY
  row_counts.slice_1 ASC,
  row_counts.slice_2 ASC
SETTINGS prefer_column_name_to_alias = 1, join_use_nulls = 1, aggregate_functions_null_for_empty = 1, short_circuit_function_evaluation = 'enable', query_plan_max_optimizations_to_apply = 1000000
