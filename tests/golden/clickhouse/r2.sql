m_r2 AS (
  WITH m_r2_exponents AS (
    /* r2: the coefficient of determination */
    /*   R² = 1 − Σ w·(y − ŷ)² / Σ w·(y − ȳ)²,   ȳ = Σ w·y / Σ w */
    /* The spread of the target is summed in a second pass over the rows, around the mean */
    /* of the first (stable where Σ w·y² − (Σ w·y)² / Σ w would cancel). NULL when the */
    /* targets of positive weight are all equal (scikit-learn returns 1.0 or 0.0 there, nan */
    /* or −inf with force_finite=False) and on an empty slice. */
    /* R² does not change when target and prediction are multiplied by the same constant, */
    /* and neither does this: both sums are taken over values multiplied by a power of two */
    /* that brings the largest |y| (the spread) and the largest |y − ŷ| (the errors) near 1 */
    /* (exact; each error is scaled after the subtraction unless one overflowed), then */
    /* scaled back in their ratio, so targets near 1e-160 or 1e300 give R² to */
    /* the last digit instead of squares that underflow or overflow. The spread is centred */
    /* on the first pass's mean, or, where Σ w·y overflowed, on the middle of the targets' */
    /* range, and corrected to the exact mean: Σ w·d² − (Σ w·d)² / Σ w. */
    /* ⌊log2 m⌋ of the largest |y| and of the largest |e|, kept within -1022 .. 1023 (an */
    /* infinite |e| counts as the largest double) */
    SELECT
      slice_1,
      slice_2,
      w,
      w_label,
      min_label,
      max_label,
      max_abs_error,
      GREATEST(
        -1022,
        LEAST(
          1023,
          FLOOR(
            LN(
              GREATEST(GREATEST(min_label, -(
                min_label
              )), GREATEST(max_label, -(
                max_label
              )), 1e-308)
            ) / LN(CAST(2 AS Nullable(Float64)))
          )
        )
      ) AS spread_exponent,
      GREATEST(
        -1022,
        LEAST(
          1023,
          FLOOR(
            LN(LEAST(GREATEST(max_abs_error, 1e-308), 1e308)) / LN(CAST(2 AS Nullable(Float64)))
          )
        )
      ) AS error_exponent
    FROM residuals
    WHERE
      w > 0
  ), m_r2_scales AS (
    SELECT
      slice_1,
      slice_2,
      CASE
        WHEN GREATEST(
          w_label / CAST(w AS Nullable(Float64)),
          -(
            w_label / CAST(w AS Nullable(Float64))
          )
        ) <= 1.7976931348623157e308
        THEN w_label / CAST(w AS Nullable(Float64))
        ELSE min_label / CAST(2 AS Nullable(Float64)) + max_label / CAST(2 AS Nullable(Float64))
      END AS centre,
      max_abs_error <= 1.7976931348623157e308 AS errors_finite,
      POWER(CAST(2 AS Nullable(Float64)), -spread_exponent) AS spread_unit,
      POWER(CAST(2 AS Nullable(Float64)), -error_exponent) AS error_unit,
      POWER(CAST(2 AS Nullable(Float64)), error_exponent - spread_exponent) AS unit_ratio
    FROM m_r2_exponents AS exponents
  ), m_r2_sums AS (
    SELECT
      m.slice_1 AS slice_1,
      m.slice_2 AS slice_2,
      MIN(i.label) < MAX(i.label) AS targets_differ,
      MIN(m.unit_ratio) AS unit_ratio,
      SUM(i.w) AS w,
      SUM(
        i.w * CASE
          WHEN m.errors_finite
          THEN (
            i.score - i.label
          ) * m.error_unit
          ELSE i.score * m.error_unit - i.label * m.error_unit
        END * CASE
          WHEN m.errors_finite
          THEN (
            i.score - i.label
          ) * m.error_unit
          ELSE i.score * m.error_unit - i.label * m.error_unit
        END
      ) AS scaled_squared_error,
      SUM(i.w * (
        i.label * m.spread_unit - m.centre * m.spread_unit
      )) AS centred,
      SUM(
        i.w * (
          i.label * m.spread_unit - m.centre * m.spread_unit
        ) * (
          i.label * m.spread_unit - m.centre * m.spread_unit
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
  SELECT
    slice_1,
    slice_2,
    CASE
      WHEN NOT targets_differ
      THEN NULL
      WHEN scaled_squared_error = 0
      THEN CAST(1 AS Nullable(Float64))
      ELSE 1 - scaled_squared_error / CAST(centred_squares - centred * (
        centred / CAST(w AS Nullable(Float64))
      ) AS Nullable(Float64)) * unit_ratio * unit_ratio
    END AS r2
  FROM m_r2_sums AS sums
)
