m_err AS (
  WITH m_err_peer_groups AS (
    /* err: expected reciprocal rank at k (Chapelle, Metzler, Zhang & Grinspan, 2009), the */
    /* mean over lists of */
    /*   ERR@k = Σ_{p <= k} (1/p) · R_p · Π_{i < p} (1 − R_i),   R = (2^min(rel, M) − 1) / 2^M, */
    /* the cascade model: a user reads down the list and stops at position p, satisfied, with */
    /* probability R_p. M = max_relevance is the largest grade (4 by default, as in gdeval, */
    /* the TREC Web track's script); a label above M counts as M. Positions p by score, */
    /* descending; k NULL means the whole list. */
    /* Ties: the order within a tie changes ERR through the product, and its exact mean over */
    /* every order is not computed: ERR takes ties = 'pessimistic' (its default: relevant */
    /* items last within a tie), 'optimistic' or 'item' (item id descending, trec_eval's */
    /* order). Under these the rows of a peer group (see ranked.sql) share a label, so an R: */
    /* a group at positions a..e after rows whose product Π (1 − R) is S adds */
    /*   S · R · Σ_{j = 0 .. min(e, k) − a} (1 − R)^j / (a + j). */
    /* 1 − R is taken as (2^M − 2^min(rel, M) + 1) / 2^M, so that ln(1 − R) stays finite, */
    /* and S and (1 − R)^j as exponentials of sums of logarithms. */
    /* A list without a relevant judged item (label >= min_relevance) is skipped and counted */
    /* (empty = 'skip') or scores 0 (empty = 'zero'); a list without judgments is skipped. */
    SELECT
      slice_1,
      slice_2,
      query,
      first_position AS a,
      LEAST(MIN(last_position), MIN(last_position)) AS e,
      CAST(COUNT(*) AS Nullable(Int64)) AS g,
      MIN(LEAST(label, CAST(4.0 AS Nullable(Float64)))) AS grade
    FROM ranked
    WHERE
      ties = 'pessimistic'
      AND min_relevance = CAST(1.0 AS Nullable(Float64))
      AND first_position <= first_position
    GROUP BY
      slice_1,
      slice_2,
      query,
      first_position
  ), m_err_stops AS (
    /* each group's R and ln(1 − R) */
    SELECT
      slice_1,
      slice_2,
      query,
      a,
      e,
      g,
      (
        POWER(2, grade) - 1
      ) / POWER(2, CAST(4.0 AS Nullable(Float64))) AS r,
      LN(POWER(2, CAST(4.0 AS Nullable(Float64))) - POWER(2, grade) + 1) - CAST(4.0 AS Nullable(Float64)) * LN(2) AS ln_miss
    FROM m_err_peer_groups AS peer_groups
  ), m_err_survivals AS (
    /* ln S: the summed ln(1 − R) of the rows ranked above each group */
    SELECT
      slice_1,
      slice_2,
      query,
      a,
      e,
      r,
      ln_miss,
      COALESCE(
        SUM(g * ln_miss) OVER (
          PARTITION BY slice_1, slice_2, query
          ORDER BY a ASC
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ),
        0
      ) AS ln_survive
    FROM m_err_stops AS stops
  ), m_err_stop_positions AS (
    /* one row per position a + j of a group with R > 0 */
    SELECT
      slice_1,
      slice_2,
      query,
      a,
      r,
      ln_miss,
      ln_survive,
      arrayJoin(range(0, COALESCE(CAST(e - a + 1 AS Nullable(Int64)), 0))) AS j
    FROM m_err_survivals AS survivals
    WHERE
      r > 0
  ), m_err_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      EXP(ln_survive + j * ln_miss) * r / CAST(a + j AS Nullable(Float64)) AS err,
      0 AS relevant,
      0 AS judged
    FROM m_err_stop_positions AS stop_positions
    UNION ALL
    /* every list, even one without a positive grade in the top k or without judgments, */
    /* with its relevant and judged items (retrieved or not) */
    SELECT
      slice_1,
      slice_2,
      query,
      0,
      relevant,
      judged
    FROM list_floors
    WHERE
      ties = 'pessimistic' AND min_relevance = CAST(1.0 AS Nullable(Float64))
  ), m_err_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE WHEN SUM(relevant) > 0 THEN SUM(err) END AS err
    FROM m_err_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(err) AS err,
    CAST(COUNT(err) AS Nullable(Int64)) AS err_queries,
    CAST(COUNT(*) AS Nullable(Int64)) - CAST(COUNT(err) AS Nullable(Int64)) AS err_skipped
  FROM m_err_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
