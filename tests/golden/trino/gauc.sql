m_gauc AS (
  WITH m_gauc_totals AS (
    /* gauc: group AUC, the weighted mean of the per-query AUC */
    /*   GAUC = Σ_u g_u · AUC_u / Σ_u g_u   over queries u that have both classes, */
    /* with g_u = the query's summed weight (weighting 'impressions', the default: its row */
    /* count without weights), its positives' weight ('positives') or 1 ('uniform'). */
    /* AUC_u is the query's Mann–Whitney statistic, ties counting ½ (see auc.sql), from one */
    /* sort of the query's rows: with P, N the query's positive and negative weight, N(<=s) */
    /* the negative weight at or below score s (ties included, a RANGE frame) and N(=s) the */
    /* negative weight tied at s, each positive counts the negatives below it and half of */
    /* those tied with it: */
    /*   AUC_u = Σ_pos w·(N(<=s) − N(=s)/2) / (P·N) = Σ_pos w·((2·N(<=s) − N(=s)) / N) / (2·P), */
    /* each negative weight divided by N before it meets a positive one, so that no product */
    /* of weights overflows or underflows. */
    /* Without weights the same number takes one RANGE frame fewer, as a rank sum: with r */
    /* the rank of a row's tie group (RANK()) and e its last position (the rows at or below */
    /* it), the positives' mean ranks sum to R⁺ = Σ_pos (r + e)/2, and */
    /*   AUC_u = (R⁺ − P(P + 1)/2) / (P·N); */
    /* the other form's windows are then unread, and the engine drops them. */
    /* Only the rows of two-class queries are sorted; one-class queries are counted. */
    /* gauc_groups counts the queries used, gauc_skipped the one-class queries left out. */
    SELECT
      slice_1,
      slice_2,
      query,
      SUM(w_pos) AS pos,
      SUM(w_neg) AS neg
    FROM query_rows
    GROUP BY
      slice_1,
      slice_2,
      query
  ), m_gauc_per_query AS (
    SELECT
      slice_1,
      slice_2,
      query,
      SUM(
        w_pos * (
          (
            2 * neg_up_to - neg_tied
          ) / CAST(NULLIF(neg_total, 0) AS DOUBLE)
        )
      ) / CAST((
        2 * SUM(w_pos)
      ) AS DOUBLE) AS auc,
      CAST(SUM(w_pos + w_neg) AS DOUBLE) AS group_weight
    FROM (
      SELECT
        slice_1,
        slice_2,
        query,
        w_pos,
        w_neg,
        SUM(w_neg) OVER (
          PARTITION BY slice_1, slice_2, query
          ORDER BY score ASC
          RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS neg_up_to,
        SUM(w_neg) OVER (
          PARTITION BY slice_1, slice_2, query
          ORDER BY score ASC
          RANGE BETWEEN CURRENT ROW AND CURRENT ROW
        ) AS neg_tied,
        RANK() OVER (PARTITION BY slice_1, slice_2, query ORDER BY score ASC) AS rank_from,
        COUNT(*) OVER (
          PARTITION BY slice_1, slice_2, query
          ORDER BY score ASC
          RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS rank_to,
        SUM(w_neg) OVER (
          PARTITION BY slice_1, slice_2, query
          ORDER BY score ASC
          RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
        ) AS neg_total
      FROM (
        /* the rows of two-class queries (a join: ClickHouse's correlated EXISTS loses */
        /* the rows of a NULL slice, whatever the comparison of their keys) */
        SELECT
          r.*
        FROM query_rows AS r
        JOIN m_gauc_totals AS t
          ON r.slice_1 IS NOT DISTINCT FROM t.slice_1
          AND r.slice_2 IS NOT DISTINCT FROM t.slice_2
          AND r.query = t.query
        WHERE
          t.pos > 0 AND t.neg > 0
      ) AS two_class
    ) AS ranked
    GROUP BY
      slice_1,
      slice_2,
      query
  ), m_gauc_queries AS (
    /* every query: the two-class ones with their AUC, the one-class ones left out (NULL) */
    SELECT
      slice_1,
      slice_2,
      query,
      auc,
      group_weight
    FROM m_gauc_per_query AS per_query
    UNION ALL
    SELECT
      slice_1,
      slice_2,
      query,
      NULL,
      NULL
    FROM m_gauc_totals AS totals
    WHERE
      NOT (
        pos > 0 AND neg > 0
      )
  )
  SELECT
    slice_1,
    slice_2,
    SUM(group_weight * auc) / CAST(NULLIF(SUM(group_weight), 0) AS DOUBLE) AS gauc,
    COUNT(auc) AS gauc_groups,
    COUNT(*) - COUNT(auc) AS gauc_skipped
  FROM m_gauc_queries AS queries
  GROUP BY
    slice_1,
    slice_2
)
