WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
  SELECT
    `day` AS slice_1,
    `country` AS slice_2,
    `label` AS true_class,
    CAST(`p_cat` AS FLOAT64) AS class_score_1,
    CAST(`p_dog` AS FLOAT64) AS class_score_2,
    CAST(`p_fox` AS FLOAT64) AS class_score_3,
    CAST(`weight` AS FLOAT64) AS weight,
    CASE
      WHEN `label` IS NULL
      OR `weight` IS NULL
      OR `p_cat` IS NULL
      OR `p_dog` IS NULL
      OR `p_fox` IS NULL
      THEN NULL
      ELSE CAST(`weight` AS FLOAT64)
    END AS w
  FROM `logs`.`impressions`
), base AS (
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
  SELECT
    slice_1,
    slice_2,
    true_class,
    COUNT(*) AS n_all,
    COUNT(w) AS n,
    SUM(w) AS w,
    SUM(CASE WHEN (
      weight < 0 OR IS_NAN(weight) OR IS_INF(weight)
    ) THEN 1 ELSE 0 END) AS n_bad_weight,
    MIN(CASE WHEN (
      weight < 0 OR IS_NAN(weight) OR IS_INF(weight)
    ) THEN weight END) AS bad_weight
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
      THEN ERROR(
        'sqlmetrics: weight column \'weight\' must be finite and >= 0: ' || CAST(SUM(n_bad_weight) AS STRING) || CASE WHEN SUM(n_bad_weight) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_weight) = ROUND(MIN(bad_weight)) AND ABS(MIN(bad_weight)) < 1e+15
          THEN CAST(CAST(MIN(bad_weight) AS INT64) AS STRING)
          ELSE CAST(MIN(bad_weight) AS STRING)
        END
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
      ) >= CAST(1e+308 AS FLOAT64)
      THEN ERROR(
        'sqlmetrics: column \'weight\': the weights of a slice sum to more than 1e+308 (' || CAST((
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
        ) AS STRING) || '), beyond the float range; rescale them (e.g. divide the column by its largest value): every metric but the weighted counts is unchanged by a common factor'
      )
    END AS failure
  FROM base
), row_counts AS (
  /* row_counts: n_rows (used) and n_excluded per slice, the spine of the result */
  SELECT
    slice_1,
    slice_2,
    CAST(COALESCE(SUM(n), 0) AS INT64) AS n_rows,
    CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS INT64) AS n_excluded
  FROM base
  GROUP BY
    slice_1,
    slice_2
), class_score_rows AS (
  /* class_score_rows: one row per used row and class, with the class's score */
  SELECT
    slice_1,
    slice_2,
    c.class,
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
  CROSS JOIN UNNEST([
    STRUCT(1 AS i, 'cat' AS class),
    STRUCT(2 AS i, 'dog' AS class),
    STRUCT(3 AS i, 'fox' AS class)
  ]) AS c
  WHERE
    NOT w IS NULL
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
    COUNT(*) AS n,
    SUM(CASE WHEN true_class = class THEN w ELSE 0 END) AS w_pos,
    SUM(CASE WHEN true_class = class THEN 0 ELSE w END) AS w_neg
  FROM class_score_rows
  GROUP BY
    slice_1,
    slice_2,
    class,
    score
), class_score_cum AS (
  WITH class_score_cum_ranges AS (
    /* score_cum, distributed: the tp and fp of score_cum.sql without a window over a whole */
    /* slice, which an engine that spreads rows over workers runs on one of them (Spark: */
    /* "No Partition Defined for Window operation! Moving all data to a single partition"). */
    /* Each slice's finite scores are cut into N ranges of equal width (N the parameter */
    /* buckets) from its lowest to its highest finite score: buckets 0 to N, the highest */
    /* score alone in N; scores beyond ±1e300, infinities and NaN get a bucket of their own */
    /* at either end, -1 and N + 1. The bucket is a */
    /* function of the score, so a tied score falls in one bucket, and a non-decreasing one */
    /* (each step of the arithmetic rounds monotonically), so a higher bucket holds only */
    /* higher scores. tp is then the positive weight at or above the entry's score within */
    /* its bucket (a window partitioned by slice and bucket: the work spreads over the */
    /* buckets) plus the positive weight of the buckets above (a running sum over the */
    /* per-bucket totals, a few rows per slice, joined back); fp likewise. The same numbers */
    /* as score_cum.sql. Equal widths: a few outlying scores crowd the rest into few */
    /* buckets, which stays exact, only less spread. */
    SELECT
      slice_1,
      slice_2,
      class,
      MIN(CASE WHEN ABS(score) < 1e300 THEN score END) AS lo,
      MAX(CASE WHEN ABS(score) < 1e300 THEN score END) AS hi,
      SUM(w_pos) AS pos_total,
      SUM(w_neg) AS neg_total
    FROM class_score_hist
    GROUP BY
      slice_1,
      slice_2,
      class
  ), class_score_cum_bucketed AS (
    SELECT
      h.slice_1,
      h.slice_2,
      h.class,
      h.score,
      h.w_pos,
      h.w_neg,
      r.pos_total,
      r.neg_total,
      CASE
        WHEN ABS(h.score) < 1e300
        THEN COALESCE(
          CAST(FLOOR((
            h.score - r.lo
          ) / CAST(NULLIF(r.hi - r.lo, 0) AS FLOAT64) * 1024) AS INT64),
          0
        )
        WHEN h.score < 0
        THEN -1
        ELSE 1024 + 1
      END AS bucket
    FROM class_score_hist AS h
    JOIN class_score_cum_ranges AS r
      ON h.slice_1 IS NOT DISTINCT FROM r.slice_1
      AND h.slice_2 IS NOT DISTINCT FROM r.slice_2
      AND h.class IS NOT DISTINCT FROM r.class
  ), class_score_cum_above AS (
    SELECT
      slice_1,
      slice_2,
      class,
      bucket,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2, class
        ORDER BY bucket DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ) AS pos_above,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2, class
        ORDER BY bucket DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ) AS neg_above
    FROM (
      SELECT
        slice_1,
        slice_2,
        class,
        bucket,
        SUM(w_pos) AS w_pos,
        SUM(w_neg) AS w_neg
      FROM class_score_cum_bucketed AS bucketed
      GROUP BY
        slice_1,
        slice_2,
        class,
        bucket
    ) AS totals
  )
  SELECT
    e.slice_1,
    e.slice_2,
    e.class,
    e.score,
    e.w_pos,
    e.w_neg,
    e.tp_within + COALESCE(a.pos_above, 0) AS tp,
    e.fp_within + COALESCE(a.neg_above, 0) AS fp,
    e.tie_pos,
    e.tie_neg,
    e.tp_within + COALESCE(a.pos_above, 0) + e.fp_within + COALESCE(a.neg_above, 0) - e.tie_pos - e.tie_neg + 1 AS rank_from,
    e.tp_within + COALESCE(a.pos_above, 0) + e.fp_within + COALESCE(a.neg_above, 0) AS rank_to,
    e.pos_total,
    e.neg_total
  FROM (
    SELECT
      slice_1,
      slice_2,
      class,
      bucket,
      score,
      w_pos,
      w_neg,
      pos_total,
      neg_total,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2, class, bucket
        ORDER BY score DESC
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS tp_within,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2, class, bucket
        ORDER BY score DESC
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS fp_within,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2, class, bucket
        ORDER BY score DESC
        RANGE BETWEEN CURRENT ROW AND CURRENT ROW
      ) AS tie_pos,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2, class, bucket
        ORDER BY score DESC
        RANGE BETWEEN CURRENT ROW AND CURRENT ROW
      ) AS tie_neg
    FROM class_score_cum_bucketed AS bucketed
  ) AS e
  JOIN class_score_cum_above AS a
    ON e.slice_1 IS NOT DISTINCT FROM a.slice_1
    AND e.slice_2 IS NOT DISTINCT FROM a.slice_2
    AND e.class IS NOT DISTINCT FROM a.class
    AND e.bucket = a.bucket
), class_nan AS (
  /* class_nan: per class, the rows whose class score is NaN */
  SELECT
    class,
    CAST(SUM(n) AS INT64) AS n
  FROM class_score_hist
  WHERE
    IS_NAN(score)
  GROUP BY
    class
), class_checks AS (
  /* class_checks: the class-score rules; error() refuses the query with the first one broken */
  SELECT
    CASE
      WHEN label_unscored.n > 0
      THEN ERROR(
        'sqlmetrics: label column \'label\' must hold one of the classes of class_scores: ' || CAST(label_unscored.n AS STRING) || CASE WHEN label_unscored.n = 1 THEN ' row does not' ELSE ' rows do not' END || ', e.g. ' || CAST(label_unscored.e AS STRING)
      )
      WHEN nan_1.n > 0
      THEN ERROR(
        'sqlmetrics: class score column \'p_cat\' (class \'cat\') must not be NaN: ' || CAST(nan_1.n AS STRING) || CASE WHEN nan_1.n = 1 THEN ' row is not' ELSE ' rows are not' END || '' || CAST(nan_1.e AS STRING)
      )
      WHEN nan_2.n > 0
      THEN ERROR(
        'sqlmetrics: class score column \'p_dog\' (class \'dog\') must not be NaN: ' || CAST(nan_2.n AS STRING) || CASE WHEN nan_2.n = 1 THEN ' row is not' ELSE ' rows are not' END || '' || CAST(nan_2.e AS STRING)
      )
      WHEN nan_3.n > 0
      THEN ERROR(
        'sqlmetrics: class score column \'p_fox\' (class \'fox\') must not be NaN: ' || CAST(nan_3.n AS STRING) || CASE WHEN nan_3.n = 1 THEN ' row is not' ELSE ' rows are not' END || '' || CAST(nan_3.e AS STRING)
      )
    END AS failure
  FROM (
    SELECT
      COALESCE(SUM(n), 0) AS n,
      MIN(CAST(true_class AS STRING)) AS e
    FROM base
    WHERE
      n > 0 AND NOT true_class IN ('cat', 'dog', 'fox')
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
  row_counts.slice_1 AS `day`,
  row_counts.slice_2 AS `country`,
  row_counts.n_rows,
  row_counts.n_excluded,
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
  row_counts.slice_1 ASC NULLS LAST,
  row_counts.slice_2 ASC NULLS LAST
