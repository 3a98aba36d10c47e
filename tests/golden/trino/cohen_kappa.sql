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
          CAST(' rows are not, e.g. ' AS VARCHAR),
          CAST(MIN(bad_weight) AS VARCHAR)
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
), m_cohen_kappa AS (
  WITH m_cohen_kappa_ranked_classes AS (
    /* cohen_kappa: Cohen's kappa of predicted and true classes, scikit-learn's */
    /* cohen_kappa_score(y, y_hat, weights=..., sample_weight=w): */
    /*   κ = 1 − Σ_ij d_ij·C_ij / Σ_ij d_ij·E_ij = 1 − n·Σ_ij d_ij·C_ij / Σ_ij d_ij·t_i·p_j */
    /* over the slice's classes, C_ij the weight of rows of true class i predicted as j, */
    /* E_ij = t_i·p_j / n their weight expected by chance (t_i, p_j: the true and predicted */
    /* weight of a class; n: the total weight), and d_ij the disagreement of i and j, with */
    /* r the position of a class among the slice's classes in sorted order (1, 2, ...): */
    /*   'none'       0 when i = j, else 1: κ = (p_o − p_e) / (1 − p_e) */
    /*   'linear'     |r_i − r_j| */
    /*   'quadratic'  (r_i − r_j)² */
    /* The slice's classes are those present as a label or a prediction (scikit-learn's */
    /* labels); linear and quadratic weights read their order (numbers by value, strings as */
    /* text), so they suit ordinal classes. NULL when the expected disagreement is 0 (one */
    /* class carries all the weight on both sides; scikit-learn: nan) and on an empty slice. */
    SELECT
      slice_1,
      slice_2,
      class,
      support,
      predicted,
      DENSE_RANK() OVER (PARTITION BY slice_1, slice_2 ORDER BY class) AS r
    FROM class_counts
  ), m_cohen_kappa_class_pairs AS (
    /* every ordered pair (i, j) of the slice's classes: its disagreement d and t_i·p_j */
    SELECT
      t.slice_1,
      t.slice_2,
      t.class AS true_class,
      p.class AS predicted_class,
      t.support * p.predicted AS chance,
      CASE 'none'
        WHEN 'linear'
        THEN ABS(t.r - p.r)
        WHEN 'quadratic'
        THEN (
          t.r - p.r
        ) * (
          t.r - p.r
        )
        ELSE CASE WHEN t.r = p.r THEN 0 ELSE 1 END
      END AS d
    FROM m_cohen_kappa_ranked_classes AS t
    JOIN m_cohen_kappa_ranked_classes AS p
      ON t.slice_1 IS NOT DISTINCT FROM p.slice_1
      AND t.slice_2 IS NOT DISTINCT FROM p.slice_2
  ), m_cohen_kappa_disagreement AS (
    SELECT
      pairs.slice_1,
      pairs.slice_2,
      SUM(pairs.d * COALESCE(c.w, 0)) AS observed,
      SUM(pairs.d * pairs.chance) AS chance
    FROM m_cohen_kappa_class_pairs AS pairs
    LEFT JOIN class_confusion AS c
      ON pairs.slice_1 IS NOT DISTINCT FROM c.slice_1
      AND pairs.slice_2 IS NOT DISTINCT FROM c.slice_2
      AND c.true_class = pairs.true_class
      AND c.predicted_class = pairs.predicted_class
    GROUP BY
      pairs.slice_1,
      pairs.slice_2
  ), m_cohen_kappa_totals AS (
    SELECT
      slice_1,
      slice_2,
      SUM(support) AS n
    FROM class_counts
    GROUP BY
      slice_1,
      slice_2
  )
  SELECT
    totals.slice_1,
    totals.slice_2,
    1 - CAST(totals.n * d.observed AS DOUBLE) / NULLIF(d.chance, 0) AS cohen_kappa
  FROM m_cohen_kappa_totals AS totals
  JOIN m_cohen_kappa_disagreement AS d
    ON totals.slice_1 IS NOT DISTINCT FROM d.slice_1
    AND totals.slice_2 IS NOT DISTINCT FROM d.slice_2
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows,
  row_counts.n_excluded,
  m_cohen_kappa.cohen_kappa AS cohen_kappa
FROM row_counts
LEFT JOIN m_cohen_kappa
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_cohen_kappa.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_cohen_kappa.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1,
  row_counts.slice_2
