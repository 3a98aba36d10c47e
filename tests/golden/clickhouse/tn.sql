m_tn AS (
  /* tn: the weighted count of negatives predicted negative (label 0, score < threshold). */
  /* Without weights it is a row count. */
  SELECT
    slice_1,
    slice_2,
    tn
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
