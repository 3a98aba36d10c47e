m_fp AS (
  /* fp: the weighted count of negatives predicted positive (label 0, score >= threshold). */
  /* Without weights it is a row count. */
  SELECT
    slice_1,
    slice_2,
    fp
  FROM confusion
  WHERE
    threshold = CAST(0.5 AS Nullable(Float64))
)
