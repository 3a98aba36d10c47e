m_map AS (
  WITH m_map_positions_at_k AS (
    /* map: mean average precision at k, the mean over lists of */
    /*   AP@k = (1/R) Σ_{p <= k, item p relevant} P@p,   P@p = (relevant items in the top p)/p, */
    /* R the list's relevant judged items (label >= min_relevance), retrieved or not; k NULL */
    /* means the whole list. Positions by score, descending. */
    /* A peer group at positions a..e (see ranked.sql) with g rows, m of them relevant and */
    /* r relevant items ranked above it: a relevant row of the group is at each of its */
    /* positions p with probability 1/g, with r + 1 + (p − a)(m − 1)/(g − 1) relevant items */
    /* expected in the top p, so it adds */
    /*   (1/g)·Σ_{p = a .. min(e, k)} (r + 1 + (p − a)(m − 1)/(g − 1)) / p */
    /*   = (1/g)·((r + 1)·S + (m − 1)/(g − 1)·(c − a·S)),  S = H(min(e, k)) − H(a − 1), */
    /* c = min(e, k) − a + 1 and H the running sum of 1/p (positions.sql); the fraction is 0 */
    /* when g = 1. Under ties = 'average' that is the exact mean over every order of a tie group. */
    /* A list without a relevant judged item is skipped and counted (empty = 'skip') or */
    /* scores 0 (empty = 'zero'); a list without judgments is skipped. */
    /* the running sums of this call's cutoff (positions.sql holds one table per cutoff in use) */
    SELECT
      p,
      harmonic_through
    FROM positions
    WHERE
      k = 0
  ), m_map_relevant_rows AS (
    SELECT
      slice_1,
      slice_2,
      query,
      first_position,
      last_position,
      group_relevant,
      RANK() OVER (PARTITION BY slice_1, slice_2, query ORDER BY first_position ASC) - 1 AS relevant_before
    FROM ranked
    WHERE
      ties = 'average'
      AND min_relevance = CAST(1.0 AS DOUBLE)
      AND relevant = 1
      AND first_position <= first_position
  ), m_map_list_parts AS (
    SELECT
      slice_1,
      slice_2,
      query,
      (
        (
          relevant_before + 1
        ) * (
          h_end.harmonic_through - h_start.harmonic_through
        ) + CASE
          WHEN last_position > first_position
          THEN (
            group_relevant - 1
          ) / CAST(last_position - first_position AS DOUBLE) * (
            h_end.p - first_position + 1 - first_position * (
              h_end.harmonic_through - h_start.harmonic_through
            )
          )
          ELSE 0
        END
      ) / CAST(last_position - first_position + 1 AS DOUBLE) AS precision_sum,
      0 AS relevant,
      0 AS judged
    FROM m_map_relevant_rows AS relevant_rows
    JOIN m_map_positions_at_k AS h_start
      ON h_start.p = first_position - 1
    JOIN m_map_positions_at_k AS h_end
      ON h_end.p = LEAST_IGNORE_NULLS(last_position, last_position)
    UNION ALL
    /* every list, even one without a relevant item in the top k or without judgments, */
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
      ties = 'average' AND min_relevance = CAST(1.0 AS DOUBLE)
  ), m_map_per_list AS (
    SELECT
      slice_1,
      slice_2,
      query,
      CASE
        WHEN SUM(relevant) > 0
        THEN SUM(precision_sum) / CAST(SUM(relevant) AS DOUBLE)
      END AS ap
    FROM m_map_list_parts AS list_parts
    GROUP BY
      slice_1,
      slice_2,
      query
  )
  SELECT
    slice_1,
    slice_2,
    AVG(ap) AS "map",
    COUNT(ap) AS map_queries,
    COUNT(*) - COUNT(ap) AS map_skipped
  FROM m_map_per_list AS per_list
  GROUP BY
    slice_1,
    slice_2
)
