WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
  SELECT
    "day" AS slice_1,
    "country" AS slice_2,
    CAST("label" AS Nullable(Float64)) AS label,
    CAST("score" AS Nullable(Float64)) AS score,
    CAST("weight" AS Nullable(Float64)) AS weight,
    CAST("propensity" AS Nullable(Float64)) AS propensity,
    CAST("target_propensity" AS Nullable(Float64)) AS target_propensity,
    CAST("reward_model" AS Nullable(Float64)) AS reward_model,
    CAST("target_reward_model" AS Nullable(Float64)) AS target_reward_model,
    CASE
      WHEN "label" IS NULL
      OR "score" IS NULL
      OR "weight" IS NULL
      OR "propensity" IS NULL
      OR "target_propensity" IS NULL
      OR "reward_model" IS NULL
      OR "target_reward_model" IS NULL
      THEN NULL
      ELSE CAST("weight" AS Nullable(Float64))
    END AS w
  FROM "logs"."impressions"
), base AS (
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
  SELECT
    slice_1,
    slice_2,
    CAST(COUNT(*) AS Nullable(Int64)) AS n_all,
    CAST(COUNT(w) AS Nullable(Int64)) AS n,
    SUM(w) AS w,
    SUM(
      w * LEAST(
        (
          target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
        ),
        CAST(10.0 AS Nullable(Float64))
      ) * label
    ) AS ope_clipped_10,
    SUM(w * target_reward_model) AS ope_model_reward,
    SUM(
      w * (
        target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
      ) * (
        label - reward_model
      )
    ) AS ope_residual,
    SUM(
      w * (
        CAST(100.0 AS Nullable(Float64)) * (
          target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
        ) / (
          (
            target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
          ) * (
            target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
          ) + CAST(100.0 AS Nullable(Float64))
        )
      ) * (
        label - reward_model
      )
    ) AS ope_shrunk_100,
    SUM(
      w * (
        target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
      ) * label
    ) AS ope_reward,
    SUM(w * (
      target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
    )) AS ope_weight,
    SUM(
      w * (
        target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
      ) * (
        target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
      )
    ) AS ope_weight_squares,
    MAX(
      CASE
        WHEN w > 0
        THEN (
          target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
        )
      END
    ) AS ope_max_weight,
    SUM(
      w * (
        CASE
          WHEN (
            target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
          ) <= CAST(10.0 AS Nullable(Float64))
          THEN (
            target_propensity / CAST(nullIf(propensity, 0) AS Nullable(Float64))
          )
          ELSE 0
        END
      ) * (
        label - reward_model
      )
    ) AS ope_switch_10,
    SUM(CASE WHEN (
      isNaN(label) OR isInfinite(label)
    ) THEN 1 ELSE 0 END) AS n_bad_target,
    MIN(CASE WHEN (
      isNaN(label) OR isInfinite(label)
    ) THEN label END) AS bad_target,
    SUM(
      CASE WHEN (
        weight < 0 OR isNaN(weight) OR isInfinite(weight)
      ) THEN 1 ELSE 0 END
    ) AS n_bad_weight,
    MIN(
      CASE WHEN (
        weight < 0 OR isNaN(weight) OR isInfinite(weight)
      ) THEN weight END
    ) AS bad_weight,
    SUM(
      CASE
        WHEN (
          propensity <= 0 OR propensity > 1 OR isNaN(propensity)
        )
        THEN 1
        ELSE 0
      END
    ) AS n_bad_propensity,
    MIN(
      CASE
        WHEN (
          propensity <= 0 OR propensity > 1 OR isNaN(propensity)
        )
        THEN propensity
      END
    ) AS bad_propensity,
    SUM(
      CASE
        WHEN (
          target_propensity < 0 OR target_propensity > 1 OR isNaN(target_propensity)
        )
        THEN 1
        ELSE 0
      END
    ) AS n_bad_target_propensity,
    MIN(
      CASE
        WHEN (
          target_propensity < 0 OR target_propensity > 1 OR isNaN(target_propensity)
        )
        THEN target_propensity
      END
    ) AS bad_target_propensity,
    SUM(
      CASE
        WHEN (
          isNaN(target_reward_model) OR isInfinite(target_reward_model)
        )
        THEN 1
        ELSE 0
      END
    ) AS n_bad_target_reward_model,
    MIN(
      CASE
        WHEN (
          isNaN(target_reward_model) OR isInfinite(target_reward_model)
        )
        THEN target_reward_model
      END
    ) AS bad_target_reward_model,
    SUM(
      CASE WHEN (
        isNaN(reward_model) OR isInfinite(reward_model)
      ) THEN 1 ELSE 0 END
    ) AS n_bad_reward_model,
    MIN(
      CASE
        WHEN (
          isNaN(reward_model) OR isInfinite(reward_model)
        )
        THEN reward_model
      END
    ) AS bad_reward_model
  FROM input
  GROUP BY
    slice_1,
    slice_2
), checks AS (
  /* checks: the input rules; error() refuses the query with the first rule the data breaks */
  SELECT
    CASE
      WHEN SUM(n_bad_target) > 0
      THEN CAST(materialize(
        'sqlmetrics: label column ''label'' must be a finite number (for clipped_ips, dm, dr, dr_os, ess, ips, max_weight, mean_weight, sndr, snips, switch_dr): ' || CAST(SUM(n_bad_target) AS Nullable(String)) || CASE WHEN SUM(n_bad_target) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_target) = ROUND(MIN(bad_target))
          AND GREATEST(MIN(bad_target), -(
            MIN(bad_target)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_target) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_target) AS Nullable(String))
        END
      ) AS Int32)
      WHEN SUM(n_bad_weight) > 0
      THEN CAST(materialize(
        'sqlmetrics: weight column ''weight'' must be finite and >= 0: ' || CAST(SUM(n_bad_weight) AS Nullable(String)) || CASE WHEN SUM(n_bad_weight) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_weight) = ROUND(MIN(bad_weight))
          AND GREATEST(MIN(bad_weight), -(
            MIN(bad_weight)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_weight) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_weight) AS Nullable(String))
        END
      ) AS Int32)
      WHEN SUM(n_bad_propensity) > 0
      THEN CAST(materialize(
        'sqlmetrics: propensity column ''propensity'' must be a probability in (0, 1] (for clipped_ips, dr, dr_os, ess, ips, max_weight, mean_weight, sndr, snips, switch_dr): ' || CAST(SUM(n_bad_propensity) AS Nullable(String)) || CASE WHEN SUM(n_bad_propensity) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_propensity) = ROUND(MIN(bad_propensity))
          AND GREATEST(MIN(bad_propensity), -(
            MIN(bad_propensity)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_propensity) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_propensity) AS Nullable(String))
        END
      ) AS Int32)
      WHEN SUM(n_bad_target_propensity) > 0
      THEN CAST(materialize(
        'sqlmetrics: target_propensity column ''target_propensity'' must be a probability in [0, 1] (for clipped_ips, dr, dr_os, ess, ips, max_weight, mean_weight, sndr, snips, switch_dr): ' || CAST(SUM(n_bad_target_propensity) AS Nullable(String)) || CASE
          WHEN SUM(n_bad_target_propensity) = 1
          THEN ' row is not'
          ELSE ' rows are not'
        END || ', e.g. ' || CASE
          WHEN MIN(bad_target_propensity) = ROUND(MIN(bad_target_propensity))
          AND GREATEST(MIN(bad_target_propensity), -(
            MIN(bad_target_propensity)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_target_propensity) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_target_propensity) AS Nullable(String))
        END
      ) AS Int32)
      WHEN SUM(n_bad_target_reward_model) > 0
      THEN CAST(materialize(
        'sqlmetrics: target_reward_model column ''target_reward_model'' must be a finite number (for dm, dr, dr_os, sndr, switch_dr): ' || CAST(SUM(n_bad_target_reward_model) AS Nullable(String)) || CASE
          WHEN SUM(n_bad_target_reward_model) = 1
          THEN ' row is not'
          ELSE ' rows are not'
        END || ', e.g. ' || CASE
          WHEN MIN(bad_target_reward_model) = ROUND(MIN(bad_target_reward_model))
          AND GREATEST(MIN(bad_target_reward_model), -(
            MIN(bad_target_reward_model)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_target_reward_model) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_target_reward_model) AS Nullable(String))
        END
      ) AS Int32)
      WHEN SUM(n_bad_reward_model) > 0
      THEN CAST(materialize(
        'sqlmetrics: reward_model column ''reward_model'' must be a finite number (for dr, dr_os, sndr, switch_dr): ' || CAST(SUM(n_bad_reward_model) AS Nullable(String)) || CASE WHEN SUM(n_bad_reward_model) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
          WHEN MIN(bad_reward_model) = ROUND(MIN(bad_reward_model))
          AND GREATEST(MIN(bad_reward_model), -(
            MIN(bad_reward_model)
          )) < 1e+15
          THEN CAST(CAST(MIN(bad_reward_model) AS Nullable(Int64)) AS Nullable(String))
          ELSE CAST(MIN(bad_reward_model) AS Nullable(String))
        END
      ) AS Int32)
      WHEN (
        SELECT
          MAX(total)
        FROM (
          SELECT
            SUM(w) AS total
          FROM base
          GROUP BY
            slice_1,
            slice_2
        ) AS slice_weights
      ) >= CAST(1e+308 AS Nullable(Float64))
      THEN CAST(materialize(
        'sqlmetrics: column ''weight'': the weights of a slice sum to more than 1e+308 (' || CAST((
          SELECT
            MAX(total)
          FROM (
            SELECT
              SUM(w) AS total
            FROM base
            GROUP BY
              slice_1,
              slice_2
          ) AS slice_weights
        ) AS Nullable(String)) || '), beyond the float range; rescale them (e.g. divide the column by its largest value): every metric but the weighted counts is unchanged by a common factor'
      ) AS Int32)
    END AS failure
  FROM base
), row_counts AS (
  /* row_counts: n_rows (used) and n_excluded per slice, the spine of the result */
  SELECT
    slice_1,
    slice_2,
    CAST(COALESCE(SUM(n), 0) AS Nullable(Int64)) AS n_rows,
    CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS Nullable(Int64)) AS n_excluded
  FROM base
  GROUP BY
    slice_1,
    slice_2
), clipped_sums AS (
  /* clipped_sums: per slice and cap λ in use, Σ k·min(w, λ)·r, the reward weighted by the */
  /* importance weight clipped at λ (clipped_ips); base holds one such sum per cap */
  /* (ope_clipped_<cap>, sqlmetrics/metrics/off_policy/__init__.py), and this step is */
  /* rendered once per cap, the renders stacked. */
  SELECT
    slice_1,
    slice_2,
    CAST(10.0 AS Nullable(Float64)) AS cap,
    SUM(w) AS w,
    SUM(ope_clipped_10) AS ope_clipped
  FROM base
  WHERE
    n > 0
  GROUP BY
    slice_1,
    slice_2
), model_sums AS (
  /* model_sums: per slice Σ k·q̂ₑ, the reward model's value of the target policy */
  /* (q̂ₑ = Σₐ πₑ(a|x)·q̂(x, a), the role target_reward_model) summed over the rows, k the */
  /* row weight, which the direct method and the doubly robust estimators read; taken once */
  /* in base (sqlmetrics/metrics/off_policy/__init__.py). */
  SELECT
    slice_1,
    slice_2,
    SUM(w) AS w,
    SUM(ope_model_reward) AS ope_model_reward
  FROM base
  WHERE
    n > 0
  GROUP BY
    slice_1,
    slice_2
), residual_sums AS (
  /* residual_sums: per slice Σ k·w·(r − q̂ₐ), the importance-weighted residual of the */
  /* reward model (q̂ₐ its value of the logged action, the role reward_model) that the */
  /* doubly robust estimators add to the direct method's value; taken once in base */
  /* (sqlmetrics/metrics/off_policy/__init__.py). */
  SELECT
    slice_1,
    slice_2,
    SUM(ope_residual) AS ope_residual
  FROM base
  WHERE
    n > 0
  GROUP BY
    slice_1,
    slice_2
), shrunk_sums AS (
  /* shrunk_sums: per slice and shrinkage λ in use, Σ k·(λw / (w² + λ))·(r − q̂ₐ), the */
  /* residual weighted by the importance weight shrunk towards 0 (dr_os); base holds one */
  /* such sum per λ (ope_shrunk_<λ>, sqlmetrics/metrics/off_policy/__init__.py), and this */
  /* step is rendered once per λ, the renders stacked. */
  SELECT
    slice_1,
    slice_2,
    CAST(100.0 AS Nullable(Float64)) AS shrinkage,
    SUM(ope_shrunk_100) AS ope_shrunk
  FROM base
  WHERE
    n > 0
  GROUP BY
    slice_1,
    slice_2
), importance_sums AS (
  /* importance_sums: per slice the sums of the importance weights w = πₑ/π₀ that ips, */
  /* snips and the diagnostics read, taken once in base (the off-policy family adds them */
  /* to it: sqlmetrics/metrics/off_policy/__init__.py), k the row weight, r the reward: */
  /*   w                  Σ k                  (the rows, weighted) */
  /*   ope_reward         Σ k·w·r */
  /*   ope_weight         Σ k·w */
  /*   ope_weight_squares Σ k·w² */
  /*   ope_max_weight     max w   over rows of weight k > 0 */
  SELECT
    slice_1,
    slice_2,
    SUM(w) AS w,
    SUM(ope_reward) AS ope_reward,
    SUM(ope_weight) AS ope_weight,
    SUM(ope_weight_squares) AS ope_weight_squares,
    MAX(ope_max_weight) AS ope_max_weight
  FROM base
  WHERE
    n > 0
  GROUP BY
    slice_1,
    slice_2
), switch_sums AS (
  /* switch_sums: per slice and cap λ in use, Σ k·1{w ≤ λ}·w·(r − q̂ₐ), the residual */
  /* weighted only where the importance weight is at most λ (switch_dr, obp's form); base */
  /* holds one such sum per cap (ope_switch_<cap>, sqlmetrics/metrics/off_policy/__init__.py), */
  /* and this step is rendered once per cap, the renders stacked. */
  SELECT
    slice_1,
    slice_2,
    CAST(10.0 AS Nullable(Float64)) AS cap,
    SUM(ope_switch_10) AS ope_switch
  FROM base
  WHERE
    n > 0
  GROUP BY
    slice_1,
    slice_2
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows AS n_rows,
  row_counts.n_excluded AS n_excluded,
  m_clipped_ips.clipped_ips AS clipped_ips,
  m_dm.dm AS dm,
  m_dr.dr AS dr,
  m_dr_os.dr_os AS dr_os,
  m_ess.ess AS ess,
  m_ips.ips AS ips,
  m_max_weight.max_weight AS max_weight,
  m_mean_weight.mean_weight AS mean_weight,
  m_sndr.sndr AS sndr,
  m_snips.snips AS snips,
  m_switch_dr.switch_dr AS switch_dr
FROM row_counts
LEFT JOIN m_clipped_ips
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_clipped_ips.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_clipped_ips.slice_2
LEFT JOIN m_dm
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_dm.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_dm.slice_2
LEFT JOIN m_dr
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_dr.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_dr.slice_2
LEFT JOIN m_dr_os
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_dr_os.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_dr_os.slice_2
LEFT JOIN m_ess
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_ess.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_ess.slice_2
LEFT JOIN m_ips
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_ips.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_ips.slice_2
LEFT JOIN m_max_weight
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_max_weight.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_max_weight.slice_2
LEFT JOIN m_mean_weight
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_mean_weight.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_mean_weight.slice_2
LEFT JOIN m_sndr
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_sndr.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_sndr.slice_2
LEFT JOIN m_snips
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_snips.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_snips.slice_2
LEFT JOIN m_switch_dr
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_switch_dr.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_switch_dr.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1 ASC,
  row_counts.slice_2 ASC
SETTINGS prefer_column_name_to_alias = 1, join_use_nulls = 1, aggregate_functions_null_for_empty = 1, short_circuit_function_evaluation = 'enable', query_plan_max_optimizations_to_apply = 1000000
