m_switch_dr AS (
  /* switch_dr: switch doubly robust, obp's form: dr whose residual term keeps only the rows of importance weight at most the cap λ */
  /*   switch-DR = Σ k·[q̂ₑ + 1{w ≤ λ}·w·(r − q̂ₐ)] / Σ k,   w = πₑ/π₀, λ the cap */
  /* (obp's form: a row of w > λ keeps its q̂ₑ and drops its residual; Wang et al. 2017's */
  /* switch uses the model alone for the actions of w > λ). NULL on a slice with no used row. */
  /* (sqlmetrics/metrics/off_policy/switch_dr.py; obp 0.5.7's obp.ope.SwitchDoublyRobust(lambda_=cap)) */
  SELECT
    m.slice_1,
    m.slice_2,
    (
      m.ope_model_reward + s.ope_switch
    ) / CAST(NULLIF(m.w, 0) AS DOUBLE) AS switch_dr
  FROM model_sums AS m
  JOIN switch_sums AS s
    ON m.slice_1 IS NOT DISTINCT FROM s.slice_1
    AND m.slice_2 IS NOT DISTINCT FROM s.slice_2
  WHERE
    s.cap = CAST(10.0 AS DOUBLE)
)
