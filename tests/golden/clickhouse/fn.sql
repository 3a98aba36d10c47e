m_fn AS (
  /* fn: the weighted count of positives predicted negative (label 1, score < threshold). */
  /* Without weights it is a row count. */
  SELECT
    slice_1,
    slice_2,
    fn
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
