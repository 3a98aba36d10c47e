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
), m_cohen_kappa AS (
  WITH m_cohen_kappa_ranked_classes AS (
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
