m_switch_dr AS (
  /* switch_dr: switch doubly robust, obp's form: dr whose residual term keeps only the rows of importance weight at most the cap λ */
  /*   switch-DR = Σ k·[q̂ₑ + 1{w ≤ λ}·w·(r − q̂ₐ)] / Σ k,   w = πₑ/π₀, λ the cap */
  /* (obp's form: a row of w > λ keeps its q̂ₑ and drops its residual; Wang et al. 2017's */
  /* switch uses the model alone for the actions of w > λ). NULL on a slice with no used row. */
  /* As obp 0.5.7's obp.ope.SwitchDoublyRobust(lambda_=cap); sqlmetrics/metrics/off_policy/switch_dr.py. */
  SELECT
    model_sums.slice_1 AS slice_1,
    model_sums.slice_2 AS slice_2,
    (
      model_sums.ope_model_reward + switch_sums.ope_switch
    ) / CAST(nullIf(model_sums.w, 0) AS Nullable(Float64)) AS switch_dr
  FROM model_sums
  JOIN switch_sums
    ON model_sums.slice_1 IS NOT DISTINCT FROM switch_sums.slice_1
    AND model_sums.slice_2 IS NOT DISTINCT FROM switch_sums.slice_2
  WHERE
    switch_sums.cap = CAST(10.0 AS Nullable(Float64))
)
