WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
  SELECT
    `day` AS slice_1,
    `country` AS slice_2,
    CAST(`label` AS FLOAT64) AS label,
    CAST(`score` AS FLOAT64) AS score,
    CASE
      WHEN `label` IS NULL OR `score` IS NULL OR `user_id` IS NULL
      THEN NULL
      ELSE CAST(1 AS FLOAT64)
    END AS w,
    `user_id` AS query,
    NULL AS item
  FROM `logs`.`impressions`
), base AS (
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
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
  /* checks: the input rules; error() refuses the query with the first rule the data breaks */
  SELECT
    CASE
      WHEN SUM(
        CASE WHEN (
          label < 0 OR IS_NAN(label) OR IS_INF(label)
        ) THEN n_all ELSE 0 END
      ) > 0
      THEN ERROR(
        'sqlmetrics: label column \'label\' must be a finite relevance >= 0 (for mrr): ' || CAST(SUM(
          CASE WHEN (
            label < 0 OR IS_NAN(label) OR IS_INF(label)
          ) THEN n_all ELSE 0 END
        ) AS STRING) || ' rows are not, e.g. ' || CAST(MIN(CASE WHEN (
          label < 0 OR IS_NAN(label) OR IS_INF(label)
        ) THEN label END) AS STRING)
      )
      WHEN SUM(n_bad_nan) > 0
      THEN ERROR(
        'sqlmetrics: score column \'score\' must not be NaN: ' || CAST(SUM(n_bad_nan) AS STRING) || ' rows are not, e.g. ' || CAST(MIN(bad_nan) AS STRING)
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
), ideal_rows AS (
  /* ideal_rows: every list's judged items, the ideal ranking's rows */
  SELECT
    slice_1,
    slice_2,
    query,
    label
  FROM input
  WHERE
    NOT w IS NULL
), list_floors AS (
  /* list_floors: per list, the lowest score any ranking metric reads (rows below are never ranked) */
  SELECT
    'average' AS ties,
    CAST(1.0 AS FLOAT64) AS min_relevance,
    slice_1,
    slice_2,
    query,
    COALESCE(MAX(CASE WHEN label >= CAST(1.0 AS FLOAT64) THEN score END), MAX(score)) AS floor
  FROM input
  WHERE
    NOT w IS NULL
  GROUP BY
    slice_1,
    slice_2,
    query
), ranked AS (
  /* ranked: the used rows of every list in rank order, for one tie policy and relevance */
  /* threshold; the call renders it once per (ties, min_relevance) its ranking metrics use */
  /* and stacks the renders (UNION ALL). A list is one query within one slice. */
  /* Rows are ordered by score, descending; tie_breaks orders tied scores by the policy: */
  /*   'average'      not at all (nothing): the whole tie group shares its positions */
  /*                  (metrics use the exact expectation over every order of the group); */
  /*   'pessimistic'  ", label" (relevant items last), 'optimistic' ", label DESC"; */
  /*   'item'         ", item DESC", as trec_eval does. */
  /* The window orders by nothing else: every extra sort key costs time, even a constant. */
  /* Only rows at or above the list's floor are ranked (list_floors: rows no metric of the */
  /* call can reach are dropped first; a tie group is kept or dropped whole, so every kept */
  /* row's positions are exact). */
  /* Rows that stay tied under the policy ("peers": same score, and same label or item) */
  /* are interchangeable for every metric, so each row carries its peer group: */
  /*   first_position .. last_position   the positions the group occupies (1-based), */
  /*   group_relevant                    its relevant rows (label >= min_relevance), */
  /*   relevant_before                   the relevant rows ranked above the group. */
  /* All windows share one sort. */
  SELECT
    'average' AS ties,
    CAST(1.0 AS FLOAT64) AS min_relevance,
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
      CASE WHEN i.label >= CAST(1.0 AS FLOAT64) THEN 1 ELSE 0 END AS relevant
    FROM input AS i
    JOIN list_floors AS f
      ON i.slice_1 IS NOT DISTINCT FROM f.slice_1
      AND i.slice_2 IS NOT DISTINCT FROM f.slice_2
      AND i.query = f.query
      AND i.score >= f.floor
    WHERE
      NOT i.w IS NULL AND f.ties = 'average' AND f.min_relevance = CAST(1.0 AS FLOAT64)
  ) AS list_rows
), judged AS (
  /* judged: the relevance histogram of every list's judged items, the ideal ranking's */
  /* input. Impressions: a list's judged items are its own rows. Judgments + run: every */
  /* judged item of the list's query, retrieved or not (a list without judgments has none). */
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
), m_mrr AS (
  WITH m_mrr_first_relevant AS (
    /* mrr: mean reciprocal rank at k, the mean over lists of RR@k = 1/p for the first */
    /* relevant item (label >= min_relevance) at position p <= k, else 0 (k NULL: no cutoff). */
    /* Positions by score, descending. Under ties the first relevant item lies in the first */
    /* peer group holding one (see ranked.sql), at positions a.. with g rows of which m */
    /* relevant. With J the non-relevant rows of the group ranked before its first relevant */
    /* one, P(J >= j) = Π_{t < j} (g − m − t)/(g − t) and P(J = j) = P(J >= j)·m/(g − j), so */
    /*   E[RR@k] = Σ_{j = 0 .. g − m, a + j <= k} P(J = j) / (a + j), */
    /* the exact mean over every order of a tie group under ties = 'average'. */
    /* A list without a relevant judged item is skipped and counted (empty = 'skip') or */
    /* scores 0 (empty = 'zero'); a list without judgments is skipped. */
    SELECT
      slice_1,
      slice_2,
      query,
      MIN(first_position) AS a,
      MIN(last_position - first_position + 1) AS g,
      MIN(group_relevant) AS m
    FROM ranked
    WHERE
      ties = 'average'
      AND min_relevance = CAST(1.0 AS FLOAT64)
      AND relevant_before = 0
      AND group_relevant > 0
      AND first_position <= COALESCE(NULL, first_position)
    GROUP BY
      slice_1,
      slice_2,
      query
  ), m_mrr_offsets AS (
    /* one row per possible j = 0 .. g − m, with P(J >= j) as a running product */
    SELECT
      slice_1,
      slice_2,
      query,
      a,
      g,
      m,
      j,
      EXP(
        COALESCE(
          SUM(CASE WHEN j < g - m THEN LN((
            g - m - j
          ) / CAST(g - j AS FLOAT64)) ELSE 0 END) OVER (
            PARTITION BY slice_1, slice_2, query
            ORDER BY j
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          ),
          0
        )
      ) AS at_least_j
    FROM (
      SELECT
        slice_1,
        slice_2,
        query,
        a,
        g,
        m,
        IF(pos = pos_2, j, NULL) AS j
      FROM m_mrr_first_relevant AS first_relevant
      CROSS JOIN UNNEST(GENERATE_ARRAY(0, GREATEST(ARRAY_LENGTH(GENERATE_ARRAY(0, CAST(g - m + 1 AS INT64) - 1))) - 1)) AS pos
      CROSS JOIN UNNEST(GENERATE_ARRAY(0, CAST(g - m + 1 AS INT64) - 1)) AS j WITH OFFSET AS pos_2
      WHERE
        pos = pos_2
        OR (
          pos > (
            ARRAY_LENGTH(GENERATE_ARRAY(0, CAST(g - m + 1 AS INT64) - 1)) - 1
          )
          AND pos_2 = (
            ARRAY_LENGTH(GENERATE_ARRAY(0, CAST(g - m + 1 AS INT64) - 1)) - 1
          )
        )
    ) AS expanded
  ), m_mrr_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      at_least_j * m / (
        CAST(g - j AS FLOAT64) * (
          a + j
        )
      ) AS rr,
      0 AS relevant,
      0 AS judged
    FROM m_mrr_offsets AS offsets
    WHERE
      a + j <= COALESCE(NULL, a + j)
    UNION ALL
    SELECT
      slice_1,
      slice_2,
      query,
      0,
      CASE WHEN label >= CAST(1.0 AS FLOAT64) THEN n ELSE 0 END,
      n
    FROM judged
    UNION ALL
    /* every list, even one without a relevant item in the top k or without judgments */
    SELECT
      slice_1,
      slice_2,
      query,
      0,
      0,
      0
    FROM ranked
    WHERE
      ties = 'average' AND min_relevance = CAST(1.0 AS FLOAT64) AND first_position = 1
  ), m_mrr_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE
        WHEN SUM(relevant) > 0 OR (
          SUM(judged) > 0 AND 'skip' = 'zero'
        )
        THEN SUM(rr)
      END AS rr
    FROM m_mrr_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(rr) AS mrr,
    COUNT(rr) AS mrr_queries,
    COUNT(*) - COUNT(rr) AS mrr_skipped
  FROM m_mrr_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS `day`,
  row_counts.slice_2 AS `country`,
  row_counts.n_rows,
  row_counts.n_excluded,
  m_mrr.mrr AS mrr,
  COALESCE(m_mrr.mrr_queries, 0) AS mrr_queries,
  COALESCE(m_mrr.mrr_skipped, 0) AS mrr_skipped
FROM row_counts
LEFT JOIN m_mrr
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_mrr.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_mrr.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1 NULLS LAST,
  row_counts.slice_2 NULLS LAST
