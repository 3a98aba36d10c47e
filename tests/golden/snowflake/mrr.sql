m_mrr AS (
  WITH m_mrr_offsets AS (
    /* mrr: mean reciprocal rank at k, the mean over lists of RR@k = 1/p for the first */
    /* relevant item (label >= min_relevance) at position p <= k, else 0 (k NULL: no cutoff). */
    /* Positions by score, descending. Under ties the first relevant item lies in the first */
    /* peer group holding one (first_hits.sql), at positions a.. with g rows of which m */
    /* relevant. With J the non-relevant rows of the group ranked before its first relevant */
    /* one, P(J >= j) = Π_{t < j} (g − m − t)/(g − t) and P(J = j) = P(J >= j)·m/(g − j), so */
    /*   E[RR@k] = Σ_{j = 0 .. g − m, a + j <= k} P(J = j) / (a + j), */
    /* the exact mean over every order of a tie group under ties = 'average'. */
    /* A list without a relevant judged item is skipped and counted (empty = 'skip') or */
    /* scores 0 (empty = 'zero'); a list without judgments is skipped. */
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
          ) / CAST(g - j AS DOUBLE)) ELSE 0 END) OVER (
            PARTITION BY slice_1, slice_2, query
            ORDER BY j ASC
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
        IFF(_u.pos = _u_2.pos_2, _u_2.j, NULL) AS j
      FROM first_hits
      CROSS JOIN TABLE(
        FLATTEN(
          INPUT => ARRAY_GENERATE_RANGE(
            0,
            (
              GREATEST(ARRAY_SIZE(ARRAY_GENERATE_RANGE(0, CAST(g - m + 1 AS BIGINT)))) - 1
            ) + 1
          )
        )
      ) AS _u(seq, key, path, index, pos, this)
      CROSS JOIN TABLE(FLATTEN(INPUT => ARRAY_GENERATE_RANGE(0, CAST(g - m + 1 AS BIGINT)))) AS _u_2(seq, key, path, pos_2, j, this)
      WHERE
        (
          ties = 'average' AND min_relevance = CAST(1.0 AS DOUBLE) AND a <= a
        )
        AND (
          _u.pos = _u_2.pos_2
          OR (
            _u.pos > (
              ARRAY_SIZE(ARRAY_GENERATE_RANGE(0, CAST(g - m + 1 AS BIGINT))) - 1
            )
            AND _u_2.pos_2 = (
              ARRAY_SIZE(ARRAY_GENERATE_RANGE(0, CAST(g - m + 1 AS BIGINT))) - 1
            )
          )
        )
    ) AS expanded
  ), m_mrr_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      at_least_j * m / (
        CAST(g - j AS DOUBLE) * (
          a + j
        )
      ) AS rr,
      0 AS relevant,
      0 AS judged
    FROM m_mrr_offsets AS offsets
    WHERE
      a + j <= (
        a + j
      )
    UNION ALL
    /* every list, even one without a relevant item in the top k or without judgments */
    SELECT
      slice_1,
      slice_2,
      query,
      0,
      relevant,
      judged
    FROM list_floors
    WHERE
      ties = 'average' AND min_relevance = CAST(1.0 AS DOUBLE)
  ), m_mrr_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE WHEN SUM(relevant) > 0 THEN SUM(rr) END AS rr
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
