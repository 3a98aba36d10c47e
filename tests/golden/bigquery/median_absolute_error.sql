m_median_absolute_error AS (
  WITH m_median_absolute_error_errors AS (
    /* median_absolute_error: the weighted median of |ŷ − y| */
    /* Over the distinct absolute errors e₁ < e₂ < … (rows of weight > 0) with cumulative */
    /* weight W(eᵢ) and total W: the mean of the first eᵢ with W(eᵢ) >= W / 2 and the first */
    /* with W(eᵢ) > W / 2. They are the same error unless W(eᵢ) = W / 2 exactly, so without */
    /* weights this is the ordinary median (the mean of the two middle values of an even */
    /* count), and with weights scikit-learn's "averaged inverted CDF" weighted percentile. */
    /* The one regression metric that sorts: the distinct errors of each slice. NULL on an */
    /* empty slice. */
    SELECT
      slice_1,
      slice_2,
      ABS(score - label) AS e,
      SUM(w) AS w
    FROM input
    WHERE
      w > 0
    GROUP BY
      slice_1,
      slice_2,
      ABS(score - label)
  ), m_median_absolute_error_cumulative AS (
    SELECT
      slice_1,
      slice_2,
      e,
      SUM(w) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY e
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS w_through,
      SUM(w) OVER (PARTITION BY slice_1, slice_2) AS w_total
    FROM m_median_absolute_error_errors AS errors
  )
  SELECT
    slice_1,
    slice_2,
    (
      MIN(CASE WHEN w_through >= w_total / 2 THEN e END) + MIN(CASE WHEN w_through > w_total / 2 THEN e END)
    ) / 2 AS median_absolute_error
  FROM m_median_absolute_error_cumulative AS cumulative
  GROUP BY
    slice_1,
    slice_2
)
