WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
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
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
  SELECT
    slice_1,
    slice_2,
    label,
    COUNT(*) AS n_all,
    COUNT(w) AS n,
    SUM(w) AS w,
    SUM(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN 1 ELSE 0 END) AS n_bad_nan,
    MIN(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN score END) AS bad_nan
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
        CASE
          WHEN (
            label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
          )
          THEN n_all
          ELSE 0
        END
      ) > 0
      THEN CAST('sqlmetrics: label column \'label\' must be a finite relevance >= 0 (for cg, dcg, err, hit_rate, map, mrr, ndcg, precision_at_10, rank_corr, recall_at_10): ' || CAST(SUM(
        CASE
          WHEN (
            label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
          )
          THEN n_all
          ELSE 0
        END
      ) AS VARCHAR) || CASE
        WHEN SUM(
          CASE
            WHEN (
              label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
            )
            THEN n_all
            ELSE 0
          END
        ) = 1
        THEN ' row is not'
        ELSE ' rows are not'
      END || ', e.g. ' || CASE
        WHEN MIN(
          CASE
            WHEN (
              label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
            )
            THEN label
          END
        ) = ROUND(
          MIN(
            CASE
              WHEN (
                label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
              )
              THEN label
            END
          )
        )
        AND ABS(
          MIN(
            CASE
              WHEN (
                label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
              )
              THEN label
            END
          )
        ) < 1e+15
        THEN CAST(CAST(MIN(
          CASE
            WHEN (
              label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
            )
            THEN label
          END
        ) AS BIGINT) AS VARCHAR)
        ELSE CAST(MIN(
          CASE
            WHEN (
              label < 0 OR label = CAST('NaN' AS DOUBLE) OR ABS(label) = CAST('inf' AS DOUBLE)
            )
            THEN label
          END
        ) AS VARCHAR)
      END AS INT)
      WHEN SUM(CASE WHEN label > 960 THEN n_all ELSE 0 END) > 0
      THEN CAST('sqlmetrics: label column \'label\' must be a relevance <= 960 under exponential gain (2^rel - 1 overflows beyond) (for cg, dcg, ndcg): ' || CAST(SUM(CASE WHEN label > 960 THEN n_all ELSE 0 END) AS VARCHAR) || CASE
        WHEN SUM(CASE WHEN label > 960 THEN n_all ELSE 0 END) = 1
        THEN ' row is not'
        ELSE ' rows are not'
      END || ', e.g. ' || CASE
        WHEN MIN(CASE WHEN label > 960 THEN label END) = ROUND(MIN(CASE WHEN label > 960 THEN label END))
        AND ABS(MIN(CASE WHEN label > 960 THEN label END)) < 1e+15
        THEN CAST(CAST(MIN(CASE WHEN label > 960 THEN label END) AS BIGINT) AS VARCHAR)
        ELSE CAST(MIN(CASE WHEN label > 960 THEN label END) AS VARCHAR)
      END AS INT)
      WHEN SUM(n_bad_nan) > 0
      THEN CAST('sqlmetrics: score column \'score\' must not be NaN: ' || CAST(SUM(n_bad_nan) AS VARCHAR) || CASE WHEN SUM(n_bad_nan) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
        WHEN MIN(bad_nan) = ROUND(MIN(bad_nan)) AND ABS(MIN(bad_nan)) < 1e+15
        THEN CAST(CAST(MIN(bad_nan) AS BIGINT) AS VARCHAR)
        ELSE CAST(MIN(bad_nan) AS VARCHAR)
      END AS INT)
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
  /* list_floors: per list, its relevant and judged items, the lowest score any ranking metric ranks */
  /* down to (rows below are never ranked) and, for the metrics that rank nothing, its top relevant */
  /* score and the lowest score that can hold a relevant item within each cutoff k */
  SELECT
    'average' AS ties,
    CAST(1.0 AS DOUBLE) AS min_relevance,
    slice_1,
    slice_2,
    query,
    LEAST_IGNORE_NULLS(
      COALESCE(MIN(CASE WHEN label > 0 THEN score END), MAX(score)),
      COALESCE(MIN(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN score END), MAX(score))
    ) AS floor,
    MAX(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN score END) AS top_relevant,
    MIN(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN score END) AS cutoff_all,
    CASE
      WHEN NOT MIN(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN score END) IS NULL
      THEN GREATEST_IGNORE_NULLS(
        MIN(CASE WHEN score_rank <= 10 THEN score END),
        MIN(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN score END)
      )
    END AS cutoff_10,
    SUM(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN 1 ELSE 0 END) AS relevant,
    COUNT(*) AS judged
  FROM (
    SELECT
      *,
      RANK() OVER (PARTITION BY slice_1, slice_2, query ORDER BY score DESC) AS score_rank
    FROM input
    WHERE
      NOT w IS NULL
  ) AS ranked_input
  GROUP BY
    slice_1,
    slice_2,
    query
  UNION ALL
  SELECT
    'pessimistic' AS ties,
    CAST(1.0 AS DOUBLE) AS min_relevance,
    slice_1,
    slice_2,
    query,
    COALESCE(MIN(CASE WHEN label > 0 THEN score END), MAX(score)) AS floor,
    MAX(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN score END) AS top_relevant,
    MIN(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN score END) AS cutoff_all,
    CASE
      WHEN NOT MIN(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN score END) IS NULL
      THEN GREATEST_IGNORE_NULLS(
        MIN(CASE WHEN score_rank <= 10 THEN score END),
        MIN(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN score END)
      )
    END AS cutoff_10,
    SUM(CASE WHEN label >= CAST(1.0 AS DOUBLE) THEN 1 ELSE 0 END) AS relevant,
    COUNT(*) AS judged
  FROM (
    SELECT
      *,
      RANK() OVER (PARTITION BY slice_1, slice_2, query ORDER BY score DESC) AS score_rank
    FROM input
    WHERE
      NOT w IS NULL
  ) AS ranked_input
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
  /*   group_relevant                    its relevant rows (label >= min_relevance). */
  /* All windows share one sort, and none is a running aggregate: RANK, the COUNT of a RANGE */
  /* frame and a SUM over the peers alone come from the peer boundaries, while a running */
  /* SUM (the relevant rows above each row) took DuckDB 16.8 CPU-s against 1.2-1.4 for each */
  /* of these over 5M rows of Zipf(1.6) lists (1.2 s on evenly spread ones). A metric that */
  /* needs the relevant rows above a group counts them over its relevant rows (map.sql). */
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
    ) AS group_relevant
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
  UNION ALL
  SELECT
    'pessimistic' AS ties,
    CAST(1.0 AS DOUBLE) AS min_relevance,
    slice_1,
    slice_2,
    query,
    label,
    relevant,
    RANK() OVER (PARTITION BY slice_1, slice_2, query ORDER BY score DESC, label ASC) AS first_position,
    COUNT(*) OVER (
      PARTITION BY slice_1, slice_2, query
      ORDER BY score DESC, label ASC
      RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS last_position,
    SUM(relevant) OVER (
      PARTITION BY slice_1, slice_2, query
      ORDER BY score DESC, label ASC
      RANGE BETWEEN CURRENT ROW AND CURRENT ROW
    ) AS group_relevant
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
      NOT i.w IS NULL
      AND f.ties = 'pessimistic'
      AND f.min_relevance = CAST(1.0 AS DOUBLE)
  ) AS list_rows
), positions AS (
  /* positions: rank positions p = 0 .. the deepest a metric with cutoff k reads, with running */
  /* sums of the DCG discount 1/log2(p + 1) and of 1/p (both 0 at p = 0), so that a metric sums */
  /* either over positions a..e as D(e) − D(a − 1). The call renders it once per cutoff its */
  /* readers use and stacks the renders (UNION ALL): a reader with a cutoff reads no position */
  /* past k (a peer group straddling k is read to LEAST(last_position, k)), so its table stops */
  /* at k, or at the longest list or judged set when that is shorter; only k NULL (no cutoff) */
  /* runs to the longest, which on a skewed log is millions of positions. Column k is the */
  /* cutoff, 0 for none (k >= 1): a reader selects its table with k = COALESCE(its k, 0). */
  /* It is written k + 0 * p, not as the constant: DataFusion (55) pushes a filter on a */
  /* constant column of stacked SELECTs wrongly, keeping every render's rows for the first's k. */
  SELECT
    0 + 0 * p AS k,
    p,
    SUM(CASE WHEN p = 0 THEN 0 ELSE 1 / LOG(2, p + 1) END) OVER (ORDER BY p ASC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS discount_through,
    SUM(CASE WHEN p = 0 THEN 0 ELSE 1 / CAST(p AS DOUBLE) END) OVER (ORDER BY p ASC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS harmonic_through
  FROM (
    SELECT
      IFF(_u.pos = _u_2.pos_2, _u_2.p, NULL) AS p
    FROM (
      SELECT
        MAX(n) AS longest
      FROM (
        SELECT
          MAX(last_position) AS n
        FROM ranked
        UNION ALL
        SELECT
          MAX(judged)
        FROM list_floors
      ) AS lengths
    ) AS longest_list
    CROSS JOIN TABLE(
      FLATTEN(
        INPUT => ARRAY_GENERATE_RANGE(
          0,
          (
            GREATEST(ARRAY_SIZE(ARRAY_GENERATE_RANGE(0, CAST(longest AS BIGINT) + 1))) - 1
          ) + 1
        )
      )
    ) AS _u(seq, key, path, index, pos, this)
    CROSS JOIN TABLE(FLATTEN(INPUT => ARRAY_GENERATE_RANGE(0, CAST(longest AS BIGINT) + 1))) AS _u_2(seq, key, path, pos_2, p, this)
    WHERE
      _u.pos = _u_2.pos_2
      OR (
        _u.pos > (
          ARRAY_SIZE(ARRAY_GENERATE_RANGE(0, CAST(longest AS BIGINT) + 1)) - 1
        )
        AND _u_2.pos_2 = (
          ARRAY_SIZE(ARRAY_GENERATE_RANGE(0, CAST(longest AS BIGINT) + 1)) - 1
        )
      )
  ) AS numbers
), first_hits AS (
  /* first_hits: per list, for one tie policy and relevance threshold, the first peer group */
  /* holding a relevant row (label >= min_relevance), found without ranking the list's rows. */
  /* Only the rows at or above the list's top relevant score (list_floors.top_relevant) can */
  /* precede or hold it: those above it (none relevant) are counted as one group, those at it */
  /* per peer group of the policy (nothing for 'average', the label, or the item and */
  /* label; see ranked.sql), and only these few groups are put in order (cutoff_hits.sql */
  /* does the same at each list's k-th highest score): */
  /*   a   the group's first position (1 + the rows ranked before it), */
  /*   g   its rows,   m   its relevant rows. */
  /* The same a, g and m as ranked.sql's first group with relevant_before = 0 and */
  /* group_relevant > 0. A list without a relevant row has no first hit. */
  SELECT
    'average' AS ties,
    CAST(1.0 AS DOUBLE) AS min_relevance,
    slice_1,
    slice_2,
    query,
    rows_before + 1 AS a,
    n AS g,
    relevant AS m
  FROM (
    /* the groups in the policy's order, with the rows and relevant rows before each */
    SELECT
      slice_1,
      slice_2,
      query,
      n,
      relevant,
      SUM(n) OVER (
        PARTITION BY slice_1, slice_2, query
        ORDER BY above DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) - n AS rows_before,
      SUM(relevant) OVER (
        PARTITION BY slice_1, slice_2, query
        ORDER BY above DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) - relevant AS relevant_before
    FROM (
      SELECT
        slice_1,
        slice_2,
        query,
        above,
        COUNT(*) AS n,
        SUM(relevant) AS relevant
      FROM (
        SELECT
          i.slice_1,
          i.slice_2,
          i.query,
          CASE WHEN i.score > f.threshold THEN 1 ELSE 0 END AS above,
          CASE WHEN i.label >= CAST(1.0 AS DOUBLE) THEN 1 ELSE 0 END AS relevant
        FROM input AS i
        JOIN (
          SELECT
            slice_1,
            slice_2,
            query,
            top_relevant AS threshold
          FROM list_floors
          WHERE
            ties = 'average' AND min_relevance = CAST(1.0 AS DOUBLE)
        ) AS f
          ON i.slice_1 IS NOT DISTINCT FROM f.slice_1
          AND i.slice_2 IS NOT DISTINCT FROM f.slice_2
          AND i.query = f.query
          AND i.score >= f.threshold
        WHERE
          NOT i.w IS NULL
      ) AS top_rows
      GROUP BY
        slice_1,
        slice_2,
        query,
        above
    ) AS top_groups
  ) AS ordered_groups
  WHERE
    relevant > 0 AND relevant_before = 0
), cutoff_hits AS (
  /* cutoff_hits: per list, for one tie policy, relevance threshold and cutoff k, hits@k: */
  /* the expected relevant rows (label >= min_relevance) in the top k positions, found */
  /* without ranking the list's rows. Only rows at or above the list's floor */
  /* (list_floors.cutoff: the larger of its k-th highest score and its lowest */
  /* relevant score; k NULL: the latter) matter: every row above the k-th highest score is */
  /* in the top k, none below it, and no relevant row lies below the floor. The rows at the */
  /* floor may straddle position k, in peer groups of the policy (nothing for 'average', */
  /* the label, or the item and label; see ranked.sql). So the rows at or above it are */
  /* counted, those above as one group and those at it per peer group, and only these few */
  /* groups are put in order: a group of n rows after the first b shares the positions */
  /* b + 1 .. b + n, min(n, max(k − b, 0)) of them within k, evenly among its rows (the */
  /* exact mean over every order of a tie group under ties = 'average'): */
  /*   hits@k = Σ_groups relevant · min(n, max(k − b, 0)) / n. */
  /* The same hits@k as summing ranked.sql's rows in the top k. A list without a relevant */
  /* row has no floor and no row here (hits@k = 0). */
  SELECT
    'average' AS ties,
    CAST(1.0 AS DOUBLE) AS min_relevance,
    NULL AS k,
    slice_1,
    slice_2,
    query,
    SUM(
      relevant * LEAST_IGNORE_NULLS(n, GREATEST_IGNORE_NULLS((
        rows_before + n
      ) - rows_before, 0)) / CAST(n AS DOUBLE)
    ) AS hits
  FROM (
    /* the groups in the policy's order, with the rows before each */
    SELECT
      slice_1,
      slice_2,
      query,
      n,
      relevant,
      SUM(n) OVER (
        PARTITION BY slice_1, slice_2, query
        ORDER BY above DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) - n AS rows_before
    FROM (
      SELECT
        slice_1,
        slice_2,
        query,
        above,
        COUNT(*) AS n,
        SUM(relevant) AS relevant
      FROM (
        SELECT
          i.slice_1,
          i.slice_2,
          i.query,
          CASE WHEN i.score > f.threshold THEN 1 ELSE 0 END AS above,
          CASE WHEN i.label >= CAST(1.0 AS DOUBLE) THEN 1 ELSE 0 END AS relevant
        FROM input AS i
        JOIN (
          SELECT
            slice_1,
            slice_2,
            query,
            cutoff_all AS threshold
          FROM list_floors
          WHERE
            ties = 'average' AND min_relevance = CAST(1.0 AS DOUBLE)
        ) AS f
          ON i.slice_1 IS NOT DISTINCT FROM f.slice_1
          AND i.slice_2 IS NOT DISTINCT FROM f.slice_2
          AND i.query = f.query
          AND i.score >= f.threshold
        WHERE
          NOT i.w IS NULL
      ) AS top_rows
      GROUP BY
        slice_1,
        slice_2,
        query,
        above
    ) AS top_groups
  ) AS ordered_groups
  GROUP BY
    slice_1,
    slice_2,
    query
  UNION ALL
  SELECT
    'average' AS ties,
    CAST(1.0 AS DOUBLE) AS min_relevance,
    10 AS k,
    slice_1,
    slice_2,
    query,
    SUM(
      relevant * LEAST_IGNORE_NULLS(n, GREATEST_IGNORE_NULLS(10 - rows_before, 0)) / CAST(n AS DOUBLE)
    ) AS hits
  FROM (
    /* the groups in the policy's order, with the rows before each */
    SELECT
      slice_1,
      slice_2,
      query,
      n,
      relevant,
      SUM(n) OVER (
        PARTITION BY slice_1, slice_2, query
        ORDER BY above DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) - n AS rows_before
    FROM (
      SELECT
        slice_1,
        slice_2,
        query,
        above,
        COUNT(*) AS n,
        SUM(relevant) AS relevant
      FROM (
        SELECT
          i.slice_1,
          i.slice_2,
          i.query,
          CASE WHEN i.score > f.threshold THEN 1 ELSE 0 END AS above,
          CASE WHEN i.label >= CAST(1.0 AS DOUBLE) THEN 1 ELSE 0 END AS relevant
        FROM input AS i
        JOIN (
          SELECT
            slice_1,
            slice_2,
            query,
            cutoff_10 AS threshold
          FROM list_floors
          WHERE
            ties = 'average' AND min_relevance = CAST(1.0 AS DOUBLE)
        ) AS f
          ON i.slice_1 IS NOT DISTINCT FROM f.slice_1
          AND i.slice_2 IS NOT DISTINCT FROM f.slice_2
          AND i.query = f.query
          AND i.score >= f.threshold
        WHERE
          NOT i.w IS NULL
      ) AS top_rows
      GROUP BY
        slice_1,
        slice_2,
        query,
        above
    ) AS top_groups
  ) AS ordered_groups
  GROUP BY
    slice_1,
    slice_2,
    query
), judged AS (
  /* judged: the relevance histogram of every list's judged items that earn gain (label > 0), */
  /* the ideal ranking's input. Impressions: a list's judged items are its own rows. */
  /* Judgments + run: every judged item of the list's query, retrieved or not. */
  /* Items of label 0 are left out: they earn no gain at any position and fill the ideal */
  /* order after every positive label, so the ideal DCG is the same without them (each */
  /* list's relevant and judged items are counted in list_floors). */
  SELECT
    slice_1,
    slice_2,
    query,
    label,
    COUNT(*) AS n
  FROM ideal_rows
  WHERE
    label > 0
  GROUP BY
    slice_1,
    slice_2,
    query,
    label
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows,
  row_counts.n_excluded,
  m_cg.cg AS cg,
  COALESCE(m_cg.cg_queries, 0) AS cg_queries,
  COALESCE(m_cg.cg_skipped, 0) AS cg_skipped,
  m_dcg.dcg AS dcg,
  COALESCE(m_dcg.dcg_queries, 0) AS dcg_queries,
  COALESCE(m_dcg.dcg_skipped, 0) AS dcg_skipped,
  m_err.err AS err,
  COALESCE(m_err.err_queries, 0) AS err_queries,
  COALESCE(m_err.err_skipped, 0) AS err_skipped,
  m_hit_rate.hit_rate AS hit_rate,
  COALESCE(m_hit_rate.hit_rate_queries, 0) AS hit_rate_queries,
  COALESCE(m_hit_rate.hit_rate_skipped, 0) AS hit_rate_skipped,
  m_map.map AS map,
  COALESCE(m_map.map_queries, 0) AS map_queries,
  COALESCE(m_map.map_skipped, 0) AS map_skipped,
  m_mrr.mrr AS mrr,
  COALESCE(m_mrr.mrr_queries, 0) AS mrr_queries,
  COALESCE(m_mrr.mrr_skipped, 0) AS mrr_skipped,
  m_ndcg.ndcg AS ndcg,
  COALESCE(m_ndcg.ndcg_queries, 0) AS ndcg_queries,
  COALESCE(m_ndcg.ndcg_skipped, 0) AS ndcg_skipped,
  m_precision_at_10.precision AS precision_at_10,
  COALESCE(m_precision_at_10.precision_queries, 0) AS precision_at_10_queries,
  COALESCE(m_precision_at_10.precision_skipped, 0) AS precision_at_10_skipped,
  m_rank_corr.rank_corr AS rank_corr,
  COALESCE(m_rank_corr.rank_corr_queries, 0) AS rank_corr_queries,
  COALESCE(m_rank_corr.rank_corr_skipped, 0) AS rank_corr_skipped,
  m_recall_at_10.recall AS recall_at_10,
  COALESCE(m_recall_at_10.recall_queries, 0) AS recall_at_10_queries,
  COALESCE(m_recall_at_10.recall_skipped, 0) AS recall_at_10_skipped
FROM row_counts
LEFT JOIN m_cg
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_cg.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_cg.slice_2
LEFT JOIN m_dcg
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_dcg.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_dcg.slice_2
LEFT JOIN m_err
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_err.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_err.slice_2
LEFT JOIN m_hit_rate
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_hit_rate.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_hit_rate.slice_2
LEFT JOIN m_map
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_map.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_map.slice_2
LEFT JOIN m_mrr
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_mrr.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_mrr.slice_2
LEFT JOIN m_ndcg
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_ndcg.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_ndcg.slice_2
LEFT JOIN m_precision_at_10
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_precision_at_10.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_precision_at_10.slice_2
LEFT JOIN m_rank_corr
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_rank_corr.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_rank_corr.slice_2
LEFT JOIN m_recall_at_10
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_recall_at_10.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_recall_at_10.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1 ASC,
  row_counts.slice_2 ASC
