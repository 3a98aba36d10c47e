WITH input AS (
  SELECT
    "day" AS slice_1,
    "country" AS slice_2,
    CAST("label" AS DOUBLE) AS label,
    CAST("score" AS DOUBLE) AS score,
    CASE
      WHEN "label" IS NULL OR "score" IS NULL OR "user_id" IS NULL
      THEN NULL
      ELSE CAST(1 AS DOUBLE)
    END AS w,
    "user_id" AS query,
    NULL AS item
  FROM "logs"."impressions"
), base AS (
  SELECT
    slice_1,
    slice_2,
    label,
    COUNT(*) AS n_all,
    COUNT(w) AS n,
    SUM(w) AS w,
    SUM(CASE WHEN IS_NAN(score) THEN 1 ELSE 0 END) AS n_bad_nan,
    MIN(CASE WHEN IS_NAN(score) THEN score END) AS bad_nan
  FROM input
  GROUP BY
    slice_1,
    slice_2,
    label
), checks AS (
  SELECT
    CASE
      WHEN SUM(
        CASE
          WHEN (
            label < 0 OR IS_NAN(label) OR IS_INFINITE(label)
          )
          THEN n_all
          ELSE 0
        END
      ) > 0
      THEN FAIL(
        CONCAT(
          CAST('sqlmetrics: label column ''label'' must be a finite relevance >= 0 (for dcg): ' AS VARCHAR),
          CAST(SUM(
            CASE
              WHEN (
                label < 0 OR IS_NAN(label) OR IS_INFINITE(label)
              )
              THEN n_all
              ELSE 0
            END
          ) AS VARCHAR),
          CAST(' rows are not, e.g. ' AS VARCHAR),
          CAST(MIN(CASE WHEN (
            label < 0 OR IS_NAN(label) OR IS_INFINITE(label)
          ) THEN label END) AS VARCHAR)
        )
      )
      WHEN SUM(CASE WHEN label > 960 THEN n_all ELSE 0 END) > 0
      THEN FAIL(
        CONCAT(
          CAST('sqlmetrics: label column ''label'' must be a relevance <= 960 under exponential gain (2^rel - 1 overflows beyond) (for dcg): ' AS VARCHAR),
          CAST(SUM(CASE WHEN label > 960 THEN n_all ELSE 0 END) AS VARCHAR),
          CAST(' rows are not, e.g. ' AS VARCHAR),
          CAST(MIN(CASE WHEN label > 960 THEN label END) AS VARCHAR)
        )
      )
      WHEN SUM(n_bad_nan) > 0
      THEN FAIL(
        CONCAT(
          CAST('sqlmetrics: score column ''score'' must not be NaN: ' AS VARCHAR),
          CAST(SUM(n_bad_nan) AS VARCHAR),
          CAST(' rows are not, e.g. ' AS VARCHAR),
          CAST(MIN(bad_nan) AS VARCHAR)
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
), ideal_rows AS (
  SELECT
    slice_1,
    slice_2,
    query,
    label
  FROM input
  WHERE
    NOT w IS NULL
), list_floors AS (
  SELECT
    'average' AS ties,
    CAST(1.0 AS DOUBLE) AS min_relevance,
    slice_1,
    slice_2,
    query,
    COALESCE(MIN(CASE WHEN label > 0 THEN score END), MAX(score)) AS floor
  FROM input
  WHERE
    NOT w IS NULL
  GROUP BY
    slice_1,
    slice_2,
    query
), ranked AS (
  SELECT
    'average' AS ties,
    CAST(1.0 AS DOUBLE) AS min_relevance,
    slice_1,
    slice_2,
    query,
    label,
    relevant,
    RANK() OVER (PARTITION BY slice_1, slice_2, query ORDER BY score DESC) AS first_position,
    COUNT(*) OVER (
      PARTITION BY slice_1, slice_2, query
      ORDER BY score DESC
      RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS last_position,
    SUM(relevant) OVER (
      PARTITION BY slice_1, slice_2, query
      ORDER BY score DESC
      RANGE BETWEEN CURRENT ROW AND CURRENT ROW
    ) AS group_relevant,
    SUM(relevant) OVER (
      PARTITION BY slice_1, slice_2, query
      ORDER BY score DESC
      RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) - SUM(relevant) OVER (
      PARTITION BY slice_1, slice_2, query
      ORDER BY score DESC
      RANGE BETWEEN CURRENT ROW AND CURRENT ROW
    ) AS relevant_before
  FROM (
    SELECT
      i.slice_1,
      i.slice_2,
      i.query,
      i.item,
      i.score,
      i.label,
      CASE WHEN i.label >= CAST(1.0 AS DOUBLE) THEN 1 ELSE 0 END AS relevant
    FROM input AS i
    JOIN list_floors AS f
      ON i.slice_1 IS NOT DISTINCT FROM f.slice_1
      AND i.slice_2 IS NOT DISTINCT FROM f.slice_2
      AND i.query = f.query
      AND i.score >= f.floor
    WHERE
      NOT i.w IS NULL AND f.ties = 'average' AND f.min_relevance = CAST(1.0 AS DOUBLE)
  ) AS list_rows
), judged AS (
  SELECT
    slice_1,
    slice_2,
    query,
    label,
    COUNT(*) AS n
  FROM ideal_rows
  GROUP BY
    slice_1,
    slice_2,
    query,
    label
), positions AS (
  SELECT
    p,
    SUM(CASE WHEN p = 0 THEN 0 ELSE CAST(1 AS DOUBLE) / LOG(2, p + 1) END) OVER (ORDER BY p ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS discount_through,
    SUM(CASE WHEN p = 0 THEN 0 ELSE 1 / CAST(p AS DOUBLE) END) OVER (ORDER BY p ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS harmonic_through
  FROM (
    SELECT
      IF(_u.pos = _u_2.pos_2, _u_2.p) AS p
    FROM (
      SELECT
        MAX(n) AS longest
      FROM (
        SELECT
          MAX(last_position) AS n
        FROM ranked
        UNION ALL
        SELECT
          SUM(n)
        FROM judged
        GROUP BY
          slice_1,
          slice_2,
          query
      ) AS lengths
    ) AS longest_list
    CROSS JOIN UNNEST(SEQUENCE(
      1,
      GREATEST(
        CARDINALITY(
          IF(
            (
              CAST(longest AS BIGINT) + 1 - 1
            ) < 0,
            ARRAY[],
            SEQUENCE(0, (
              CAST(longest AS BIGINT) + 1 - 1
            ))
          )
        )
      )
    )) AS _u(pos)
    CROSS JOIN UNNEST(IF(
      (
        CAST(longest AS BIGINT) + 1 - 1
      ) < 0,
      ARRAY[],
      SEQUENCE(0, (
        CAST(longest AS BIGINT) + 1 - 1
      ))
    )) WITH ORDINALITY AS _u_2(p, pos_2)
    WHERE
      _u.pos = _u_2.pos_2
      OR (
        _u.pos > CARDINALITY(
          IF(
            (
              CAST(longest AS BIGINT) + 1 - 1
            ) < 0,
            ARRAY[],
            SEQUENCE(0, (
              CAST(longest AS BIGINT) + 1 - 1
            ))
          )
        )
        AND _u_2.pos_2 = CARDINALITY(
          IF(
            (
              CAST(longest AS BIGINT) + 1 - 1
            ) < 0,
            ARRAY[],
            SEQUENCE(0, (
              CAST(longest AS BIGINT) + 1 - 1
            ))
          )
        )
      )
  ) AS numbers
), m_dcg AS (
  WITH m_dcg_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CAST(CASE WHEN 'exponential' = 'linear' THEN label ELSE POWER(2, label) - 1 END * (
        d_end.discount_through - d_start.discount_through
      ) AS DOUBLE) / (
        last_position - first_position + 1
      ) AS dcg,
      0 AS relevant,
      0 AS judged
    FROM ranked
    JOIN positions AS d_start
      ON d_start.p = first_position - 1
    JOIN positions AS d_end
      ON d_end.p = LEAST(last_position, COALESCE(NULL, last_position))
    WHERE
      ties = 'average'
      AND min_relevance = CAST(1.0 AS DOUBLE)
      AND first_position <= COALESCE(NULL, first_position)
    UNION ALL
    SELECT
      slice_1,
      slice_2,
      query,
      0,
      CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN n ELSE 0 END,
      n
    FROM judged
  ), m_dcg_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE
        WHEN SUM(relevant) > 0
        THEN SUM(dcg)
        WHEN SUM(judged) > 0 AND 'skip' = 'zero'
        THEN 0
      END AS dcg
    FROM m_dcg_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(dcg) AS dcg,
    COUNT(dcg) AS dcg_queries,
    COUNT(*) - COUNT(dcg) AS dcg_skipped
  FROM m_dcg_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows,
  row_counts.n_excluded,
  m_dcg.dcg AS dcg,
  COALESCE(m_dcg.dcg_queries, 0) AS dcg_queries,
  COALESCE(m_dcg.dcg_skipped, 0) AS dcg_skipped
FROM row_counts
LEFT JOIN m_dcg
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_dcg.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_dcg.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1,
  row_counts.slice_2
