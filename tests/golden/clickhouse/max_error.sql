m_max_error AS (
  /* max_error: the largest absolute error */
  /*   max |ŷ − y|   over the rows of weight > 0 */
  /* (a weight only decides whether a row counts). NULL on an empty slice. */
  SELECT
    slice_1,
    slice_2,
    max_abs_error AS max_error
  FROM residuals
)
