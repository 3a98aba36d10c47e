m_median_absolute_error AS (
  WITH m_median_absolute_error_totals AS (
    /* median_absolute_error: the weighted median of |ŷ − y| */
    /* Over the distinct absolute errors e₁ < e₂ < … (rows of weight > 0) with cumulative */
    /* weight W(eᵢ) and total W: the mean of the first eᵢ with W(eᵢ) >= W / 2 and the first */
    /* with W(eᵢ) > W / 2. They are the same error unless W(eᵢ) = W / 2, so without */
    /* weights this is the ordinary median (the mean of the two middle values of an even */
    /* count), and with weights scikit-learn's "averaged inverted CDF" weighted percentile. */
    /* The one regression metric that sorts: the distinct errors of each slice, walked by */
    /* error_cum (score −e, tp = W(≤ e): the first error is the highest such score). NULL on */
    /* an empty slice. */
    /* W, and the rounding of a sum of its terms (one unit in the last place, 2^-52, per */
    /* term): W(eᵢ) and W / 2 that close are equal (equal weights such as 0.1 or 1e-300 */
    /* give the unweighted median; their running sums land on either side of the half) */
    SELECT
      slice_1,
      slice_2,
      SUM(w_pos) AS w_total,
      SUM(w_pos) * CAST(CAST(COUNT(*) AS Nullable(Int64)) AS Nullable(Float64)) * POWER(CAST(2 AS Nullable(Float64)), -52) AS rounding
    FROM error_cum
    GROUP BY
      slice_1,
      slice_2
  )
  SELECT
    c.slice_1 AS slice_1,
    c.slice_2 AS slice_2,
    -(
      MAX(
        CASE
          WHEN c.tp >= t.w_total / CAST(2 AS Nullable(Float64)) - t.rounding
          THEN c.score
        END
      ) + MAX(
        CASE
          WHEN c.tp > t.w_total / CAST(2 AS Nullable(Float64)) + t.rounding
          THEN c.score
        END
      )
    ) / CAST(2 AS Nullable(Float64)) AS median_absolute_error
  FROM error_cum AS c
  JOIN m_median_absolute_error_totals AS t
    ON c.slice_1 IS NOT DISTINCT FROM t.slice_1
    AND c.slice_2 IS NOT DISTINCT FROM t.slice_2
  GROUP BY
    c.slice_1,
    c.slice_2
)
