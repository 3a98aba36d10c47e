m_tp AS (
  /* tp: the weighted count of positives predicted positive (label 1, score >= threshold). */
  /* Without weights it is a row count. */
  SELECT
    slice_1,
    slice_2,
    tp
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
