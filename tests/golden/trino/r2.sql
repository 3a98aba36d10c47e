m_r2 AS (
  WITH m_r2_scales AS (
    /* r2: the coefficient of determination */
    /*   R² = 1 − Σ w·(y − ŷ)² / Σ w·(y − ȳ)²,   ȳ = Σ w·y / Σ w */
    /* The spread of the target is summed in a second pass over the rows, around the mean */
    /* of the first (stable where Σ w·y² − (Σ w·y)² / Σ w would cancel). NULL when the */
    /* targets of positive weight are all equal (scikit-learn returns 1.0 or 0.0 there, nan */
    /* or −inf with force_finite=False) and on an empty slice. */
    /* R² does not change when target and prediction are multiplied by the same constant, */
    /* and neither does this: both sums are taken over values divided by a power of two */
    /* near the largest |y| (the spread) and the largest |y − ŷ| (the errors), then */
    /* scaled back in their ratio, so targets near 1e-160 or 1e200 give R² to the last */
    /* digit instead of squares that underflow or overflow. */
    SELECT
      slice_1,
      slice_2,
      w_label / CAST(w AS DOUBLE) AS label_mean,
      CASE
        WHEN max_abs_label > 0
        THEN POWER(
          CAST(2 AS DOUBLE),
          GREATEST(
            -1022,
            LEAST(1023, FLOOR(CAST(LN(max_abs_label) AS DOUBLE) / LN(CAST(2 AS DOUBLE))))
          )
        )
        ELSE CAST(1 AS DOUBLE)
      END AS spread_scale, /* 2^⌊log2 m⌋, the exponent kept within -1022 .. 1023 (the scale is never subnormal, */ /* and an infinite |e| scales as the largest double) */
      CASE
        WHEN max_abs_error > 0
        THEN POWER(
          CAST(2 AS DOUBLE),
          GREATEST(
            -1022,
            LEAST(
              1023,
              FLOOR(CAST(LN(LEAST(max_abs_error, 1e308)) AS DOUBLE) / LN(CAST(2 AS DOUBLE)))
            )
          )
        )
        ELSE CAST(1 AS DOUBLE)
      END AS error_scale
    FROM residuals
    WHERE
      w > 0
  ), m_r2_sums AS (
    SELECT
      m.slice_1,
      m.slice_2,
      MIN(i.label) < MAX(i.label) AS targets_differ,
      MIN(m.error_scale / CAST(m.spread_scale AS DOUBLE)) AS ratio_scale,
      SUM(
        i.w * (
          i.score / CAST(m.error_scale AS DOUBLE) - i.label / CAST(m.error_scale AS DOUBLE)
        ) * (
          i.score / CAST(m.error_scale AS DOUBLE) - i.label / CAST(m.error_scale AS DOUBLE)
        )
      ) AS scaled_squared_error,
      SUM(i.w) AS w,
      SUM(
        i.w * (
          i.label / CAST(m.spread_scale AS DOUBLE) - m.label_mean / CAST(m.spread_scale AS DOUBLE)
        )
      ) AS centred,
      SUM(
        i.w * (
          i.label / CAST(m.spread_scale AS DOUBLE) - m.label_mean / CAST(m.spread_scale AS DOUBLE)
        ) * (
          i.label / CAST(m.spread_scale AS DOUBLE) - m.label_mean / CAST(m.spread_scale AS DOUBLE)
        )
      ) AS centred_squares
    FROM m_r2_scales AS m
    JOIN input AS i
      ON i.slice_1 IS NOT DISTINCT FROM m.slice_1
      AND i.slice_2 IS NOT DISTINCT FROM m.slice_2
    WHERE
      i.w > 0
    GROUP BY
      m.slice_1,
      m.slice_2
  )
  /* the spread around the exact mean: Σ w·d² − (Σ w·d)² / Σ w for d = y − ȳ₀, where ȳ₀ is */
  /* the mean of the first pass (rounded; with tiny targets its rounding is not negligible) */
  SELECT
    slice_1,
    slice_2,
    CASE
      WHEN NOT targets_differ
      THEN NULL
      WHEN scaled_squared_error = 0
      THEN CAST(1 AS DOUBLE)
      ELSE 1 - scaled_squared_error / CAST(centred_squares - centred * centred / CAST(w AS DOUBLE) AS DOUBLE) * ratio_scale * ratio_scale
    END AS r2
  FROM m_r2_sums AS sums
)
