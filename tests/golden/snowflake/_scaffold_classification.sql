WITH input AS (
  /* input: the source under canonical names (the only step that names your columns); w is the weight */
  /* of a used row, NULL for a row left out for a NULL in a bound column */
  SELECT
    "day" AS slice_1,
    "country" AS slice_2,
    CAST("label" AS DOUBLE) AS label,
    CAST("score" AS DOUBLE) AS score,
    CAST("weight" AS DOUBLE) AS weight,
    CASE
      WHEN "label" IS NULL OR "score" IS NULL OR "user_id" IS NULL OR "weight" IS NULL
      THEN NULL
      ELSE CAST("weight" AS DOUBLE)
    END AS w,
    "user_id" AS query
  FROM "logs"."impressions"
), base AS (
  /* base: the one aggregation over the source, per slice (and score, label or class where a metric */
  /* reads them): used rows n, all rows n_all, weight w; everything below reads it */
  SELECT
    slice_1,
    slice_2,
    score,
    label,
    COUNT(*) AS n_all,
    COUNT(w) AS n,
    SUM(w) AS w,
    SUM(
      CASE
        WHEN (
          weight < 0
          OR weight = CAST('NaN' AS DOUBLE)
          OR ABS(weight) = CAST('inf' AS DOUBLE)
        )
        THEN 1
        ELSE 0
      END
    ) AS n_bad_weight,
    MIN(
      CASE
        WHEN (
          weight < 0
          OR weight = CAST('NaN' AS DOUBLE)
          OR ABS(weight) = CAST('inf' AS DOUBLE)
        )
        THEN weight
      END
    ) AS bad_weight
  FROM input
  GROUP BY
    slice_1,
    slice_2,
    score,
    label
), checks AS (
  /* checks: the input rules; error() refuses the query with the first rule the data breaks */
  SELECT
    CASE
      WHEN SUM(CASE WHEN NOT label IN (0, 1) THEN n_all ELSE 0 END) > 0
      THEN CAST('sqlmetrics: label column \'label\' must be 0 or 1 (or boolean) (for accuracy, auc, average_precision, balanced_accuracy, brier, brier_reliability, brier_resolution, brier_uncertainty, calibration, ece, f1, fbeta, fn, fp, gauc, label_mean, logloss, logloss_reliability, logloss_resolution, logloss_uncertainty, mcc, ne, precision, recall, rig, score_mean, specificity, tn, tp): ' || CAST(SUM(CASE WHEN NOT label IN (0, 1) THEN n_all ELSE 0 END) AS VARCHAR) || CASE
        WHEN SUM(CASE WHEN NOT label IN (0, 1) THEN n_all ELSE 0 END) = 1
        THEN ' row is not'
        ELSE ' rows are not'
      END || ', e.g. ' || CASE
        WHEN MIN(CASE WHEN NOT label IN (0, 1) THEN label END) = ROUND(MIN(CASE WHEN NOT label IN (0, 1) THEN label END))
        AND ABS(MIN(CASE WHEN NOT label IN (0, 1) THEN label END)) < 1e+15
        THEN CAST(CAST(MIN(CASE WHEN NOT label IN (0, 1) THEN label END) AS BIGINT) AS VARCHAR)
        ELSE CAST(MIN(CASE WHEN NOT label IN (0, 1) THEN label END) AS VARCHAR)
      END AS INT)
      WHEN SUM(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN n_all ELSE 0 END) > 0
      THEN CAST('sqlmetrics: score column \'score\' must not be NaN: ' || CAST(SUM(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN n_all ELSE 0 END) AS VARCHAR) || CASE
        WHEN SUM(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN n_all ELSE 0 END) = 1
        THEN ' row is not'
        ELSE ' rows are not'
      END || ', e.g. ' || CASE
        WHEN MIN(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN score END) = ROUND(MIN(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN score END))
        AND ABS(MIN(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN score END)) < 1e+15
        THEN CAST(CAST(MIN(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN score END) AS BIGINT) AS VARCHAR)
        ELSE CAST(MIN(CASE WHEN score = CAST('NaN' AS DOUBLE) THEN score END) AS VARCHAR)
      END AS INT)
      WHEN SUM(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN n_all ELSE 0 END) > 0
      THEN CAST('sqlmetrics: score column \'score\' must be finite (for brier, brier_reliability, brier_resolution, brier_uncertainty, calibration, ece, logloss, logloss_reliability, logloss_resolution, logloss_uncertainty, ne, rig, score_mean): ' || CAST(SUM(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN n_all ELSE 0 END) AS VARCHAR) || CASE
        WHEN SUM(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN n_all ELSE 0 END) = 1
        THEN ' row is not'
        ELSE ' rows are not'
      END || ', e.g. ' || CASE
        WHEN MIN(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN score END) = ROUND(MIN(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN score END))
        AND ABS(MIN(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN score END)) < 1e+15
        THEN CAST(CAST(MIN(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN score END) AS BIGINT) AS VARCHAR)
        ELSE CAST(MIN(CASE WHEN ABS(score) = CAST('inf' AS DOUBLE) THEN score END) AS VARCHAR)
      END AS INT)
      WHEN SUM(CASE WHEN (
        score < 0 OR score > 1
      ) THEN n_all ELSE 0 END) > 0
      THEN CAST('sqlmetrics: score column \'score\' must be a probability in [0, 1] (for brier, brier_reliability, brier_resolution, brier_uncertainty, ece, logloss, logloss_reliability, logloss_resolution, logloss_uncertainty, ne, rig): ' || CAST(SUM(CASE WHEN (
        score < 0 OR score > 1
      ) THEN n_all ELSE 0 END) AS VARCHAR) || CASE
        WHEN SUM(CASE WHEN (
          score < 0 OR score > 1
        ) THEN n_all ELSE 0 END) = 1
        THEN ' row is not'
        ELSE ' rows are not'
      END || ', e.g. ' || CASE
        WHEN MIN(CASE WHEN (
          score < 0 OR score > 1
        ) THEN score END) = ROUND(MIN(CASE WHEN (
          score < 0 OR score > 1
        ) THEN score END))
        AND ABS(MIN(CASE WHEN (
          score < 0 OR score > 1
        ) THEN score END)) < 1e+15
        THEN CAST(CAST(MIN(CASE WHEN (
          score < 0 OR score > 1
        ) THEN score END) AS BIGINT) AS VARCHAR)
        ELSE CAST(MIN(CASE WHEN (
          score < 0 OR score > 1
        ) THEN score END) AS VARCHAR)
      END AS INT)
      WHEN SUM(n_bad_weight) > 0
      THEN CAST('sqlmetrics: weight column \'weight\' must be finite and >= 0: ' || CAST(SUM(n_bad_weight) AS VARCHAR) || CASE WHEN SUM(n_bad_weight) = 1 THEN ' row is not' ELSE ' rows are not' END || ', e.g. ' || CASE
        WHEN MIN(bad_weight) = ROUND(MIN(bad_weight)) AND ABS(MIN(bad_weight)) < 1e+15
        THEN CAST(CAST(MIN(bad_weight) AS BIGINT) AS VARCHAR)
        ELSE CAST(MIN(bad_weight) AS VARCHAR)
      END AS INT)
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
      ) >= CAST(1e+308 AS DOUBLE)
      THEN CAST('sqlmetrics: column \'weight\': the weights of a slice sum to more than 1e+308 (' || CAST((
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
      ) AS VARCHAR) || '), beyond the float range; rescale them (e.g. divide the column by its largest value): every metric but the weighted counts is unchanged by a common factor' AS INT)
    END AS failure
  FROM base
), row_counts AS (
  /* row_counts: n_rows (used) and n_excluded per slice, the spine of the result */
  SELECT
    slice_1,
    slice_2,
    CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n_rows,
    CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS BIGINT) AS n_excluded
  FROM base
  GROUP BY
    slice_1,
    slice_2
), score_hist AS (
  /* score_hist: the score histogram, one row per slice, distinct score and label, with */
  /* the weight of its positives (w_pos) or of its negatives (w_neg); a score held by both */
  /* classes has two rows. Shared by auc, average_precision, the threshold metrics and the */
  /* probability metrics: once rows are summed by score, none of them needs a row. Metrics */
  /* that run over scores in order use RANGE frames, which take both rows of a score. */
  SELECT
    slice_1,
    slice_2,
    score,
    n,
    CASE WHEN label = 1 THEN w ELSE 0 END AS w_pos,
    CASE WHEN label = 1 THEN 0 ELSE w END AS w_neg
  FROM base
  WHERE
    n > 0
), confusion AS (
  /* confusion: the weighted confusion counts per slice at every threshold used by the */
  /* call's threshold metrics. A score >= threshold predicts the positive class. The */
  /* counts are DOUBLE whatever the type of score_hist's weights. */
  SELECT
    slice_1,
    slice_2,
    t.threshold,
    CAST(SUM(CASE WHEN score >= t.threshold THEN w_pos ELSE 0 END) AS DOUBLE) AS tp,
    CAST(SUM(CASE WHEN score >= t.threshold THEN w_neg ELSE 0 END) AS DOUBLE) AS fp,
    CAST(SUM(CASE WHEN score < t.threshold THEN w_neg ELSE 0 END) AS DOUBLE) AS tn,
    CAST(SUM(CASE WHEN score < t.threshold THEN w_pos ELSE 0 END) AS DOUBLE) AS fn
  FROM score_hist
  CROSS JOIN (VALUES
    (CAST(0.5 AS DOUBLE))) AS t(threshold)
  GROUP BY
    slice_1,
    slice_2,
    t.threshold
), score_cum AS (
  WITH score_cum_ranges AS (
    /* score_cum, distributed: the tp and fp of score_cum.sql without a window over a whole */
    /* slice, which an engine that spreads rows over workers runs on one of them (Spark: */
    /* "No Partition Defined for Window operation! Moving all data to a single partition"). */
    /* Each slice's finite scores are cut into N ranges of equal width (N the parameter */
    /* buckets) from its lowest to its highest finite score: buckets 0 to N, the highest */
    /* score alone in N; scores beyond ±1e300, infinities and NaN get a bucket of their own */
    /* at either end, -1 and N + 1. The bucket is a */
    /* function of the score, so a tied score falls in one bucket, and a non-decreasing one */
    /* (each step of the arithmetic rounds monotonically), so a higher bucket holds only */
    /* higher scores. tp is then the positive weight at or above the entry's score within */
    /* its bucket (a window partitioned by slice and bucket: the work spreads over the */
    /* buckets) plus the positive weight of the buckets above (a running sum over the */
    /* per-bucket totals, a few rows per slice, joined back); fp likewise. The same numbers */
    /* as score_cum.sql. Equal widths: a few outlying scores crowd the rest into few */
    /* buckets, which stays exact, only less spread. */
    SELECT
      slice_1,
      slice_2,
      MIN(CASE WHEN ABS(score) < 1e300 THEN score END) AS lo,
      MAX(CASE WHEN ABS(score) < 1e300 THEN score END) AS hi,
      SUM(w_pos) AS pos_total,
      SUM(w_neg) AS neg_total
    FROM score_hist
    GROUP BY
      slice_1,
      slice_2
  ), score_cum_bucketed AS (
    SELECT
      h.slice_1,
      h.slice_2,
      h.score,
      h.w_pos,
      h.w_neg,
      r.pos_total,
      r.neg_total,
      CASE
        WHEN ABS(h.score) < 1e300
        THEN COALESCE(
          CAST(FLOOR((
            h.score - r.lo
          ) / CAST(NULLIF(r.hi - r.lo, 0) AS DOUBLE) * 1024) AS BIGINT),
          0
        )
        WHEN h.score < 0
        THEN -1
        ELSE 1024 + 1
      END AS bucket
    FROM score_hist AS h
    JOIN score_cum_ranges AS r
      ON h.slice_1 IS NOT DISTINCT FROM r.slice_1
      AND h.slice_2 IS NOT DISTINCT FROM r.slice_2
  ), score_cum_above AS (
    SELECT
      slice_1,
      slice_2,
      bucket,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY bucket DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ) AS pos_above,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2
        ORDER BY bucket DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
      ) AS neg_above
    FROM (
      SELECT
        slice_1,
        slice_2,
        bucket,
        SUM(w_pos) AS w_pos,
        SUM(w_neg) AS w_neg
      FROM score_cum_bucketed AS bucketed
      GROUP BY
        slice_1,
        slice_2,
        bucket
    ) AS totals
  )
  SELECT
    e.slice_1,
    e.slice_2,
    e.score,
    e.w_pos,
    e.w_neg,
    e.tp_within + COALESCE(a.pos_above, 0) AS tp,
    e.fp_within + COALESCE(a.neg_above, 0) AS fp,
    e.tie_pos,
    e.tie_neg,
    e.tp_within + COALESCE(a.pos_above, 0) + e.fp_within + COALESCE(a.neg_above, 0) - e.tie_pos - e.tie_neg + 1 AS rank_from,
    e.tp_within + COALESCE(a.pos_above, 0) + e.fp_within + COALESCE(a.neg_above, 0) AS rank_to,
    e.pos_total,
    e.neg_total
  FROM (
    SELECT
      slice_1,
      slice_2,
      bucket,
      score,
      w_pos,
      w_neg,
      pos_total,
      neg_total,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2, bucket
        ORDER BY score DESC
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS tp_within,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2, bucket
        ORDER BY score DESC
        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
      ) AS fp_within,
      SUM(w_pos) OVER (
        PARTITION BY slice_1, slice_2, bucket
        ORDER BY score DESC
        RANGE BETWEEN CURRENT ROW AND CURRENT ROW
      ) AS tie_pos,
      SUM(w_neg) OVER (
        PARTITION BY slice_1, slice_2, bucket
        ORDER BY score DESC
        RANGE BETWEEN CURRENT ROW AND CURRENT ROW
      ) AS tie_neg
    FROM score_cum_bucketed AS bucketed
  ) AS e
  JOIN score_cum_above AS a
    ON e.slice_1 IS NOT DISTINCT FROM a.slice_1
    AND e.slice_2 IS NOT DISTINCT FROM a.slice_2
    AND e.bucket = a.bucket
), calibration_bins AS (
  /* calibration_bins: the score histogram cut into scikit-learn's calibration_curve bins, */
  /* per slice and non-empty bin: n rows, weight w, positives' weight w_pos and Σ w·p */
  /* (w_score). Read by sm.calibration_curve and by the metrics of the bins (ece, the */
  /* reliability and resolution of brier and logloss), one render per (bins, strategy). */
  /* Bin edges are numpy's: cuts holds numpy.linspace(0, 1, bins + 1), cut j at */
  /* fraction = j · step (step = 1 / bins; the last cut exactly 1), and level = */
  /* fraction · 100 / 100 (what numpy.percentile reads after scikit-learn's fraction · 100); */
  /* the inner cuts j = 1 .. bins − 1 are the edges that separate bins. */
  /*   uniform:  the edges are the fractions. A score's bin is c = ⌈p · bins⌉ − 1 (held */
  /*             within 0 .. bins − 1), one lower when edge c is not below p, one higher */
  /*             when edge c + 1 is (no sort: the score alone gives its bin). */
  /*   quantile: the edges are numpy.percentile(p, fraction · 100) over the slice's rows */
  /*             (weights do not move edges): virtual position v = (rows − 1) · level */
  /*             between the order statistics a = p(⌊v⌋) and b = p(⌊v⌋ + 1), t = v − ⌊v⌋: */
  /*             edge = a + (b − a)·t, or b − (b − a)·(1 − t) when t >= 0.5 (numpy's */
  /*             _lerp, to the last bit); a score's bin is the number of edges below it. */
  /* A score's bin is the number of inner edges strictly below it */
  /* (numpy.searchsorted(edges, p, side="left")): a score equal to an edge falls in the */
  /* lower bin; 0 is in bin 0, 1 in bin bins − 1. */
  SELECT
    15 AS bins,
    'uniform' AS strategy,
    slice_1,
    slice_2,
    bin,
    CAST(SUM(n) AS BIGINT) AS n,
    SUM(w) AS w,
    SUM(w_pos) AS w_pos,
    SUM(score * w) AS w_score
  FROM (
    WITH bin_scores AS (
      SELECT
        slice_1,
        slice_2,
        score,
        SUM(n) AS n,
        CAST(SUM(w_pos + w_neg) AS DOUBLE) AS w,
        CAST(SUM(w_pos) AS DOUBLE) AS w_pos
      FROM score_hist
      GROUP BY
        slice_1,
        slice_2,
        score
    ), uniform_guess AS (
      SELECT
        slice_1,
        slice_2,
        score,
        n,
        w,
        w_pos,
        LEAST_IGNORE_NULLS(
          GREATEST_IGNORE_NULLS(
            CAST(CEIL(LEAST_IGNORE_NULLS(GREATEST_IGNORE_NULLS(score, 0), 1) * 15) AS BIGINT) - 1,
            0
          ),
          15 - 1
        ) AS c /* the score clamped to [0, 1] first (the same bin for every finite score): a NaN or */ /* infinite score, which the input check refuses, must not fail this cast before it */
      FROM bin_scores
      WHERE
        TRUE
    ), bin_ranked AS (
      SELECT
        slice_1,
        slice_2,
        score,
        n,
        COALESCE(
          SUM(n) OVER (
            PARTITION BY slice_1, slice_2
            ORDER BY score ASC
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
          ),
          0
        ) AS below
      FROM bin_scores
      WHERE
        FALSE
    ), slice_rows AS (
      SELECT
        slice_1,
        slice_2,
        SUM(n) AS n
      FROM bin_scores
      WHERE
        FALSE
      GROUP BY
        slice_1,
        slice_2
    ), positions AS (
      SELECT
        slice_1,
        slice_2,
        j,
        FLOOR(v) AS lower,
        LEAST_IGNORE_NULLS(FLOOR(v) + 1, CAST(n - 1 AS DOUBLE)) AS upper,
        v - FLOOR(v) AS t
      FROM (
        SELECT
          s.slice_1,
          s.slice_2,
          cuts.j,
          CAST(s.n - 1 AS DOUBLE) * cuts.level AS v,
          s.n
        FROM slice_rows AS s
        CROSS JOIN (
          SELECT
            j,
            fraction,
            fraction * 100 / CAST(100 AS DOUBLE) AS level
          FROM (
            SELECT
              j,
              CASE
                WHEN j = 15
                THEN CAST(1 AS DOUBLE)
                ELSE CAST(j AS DOUBLE) * CAST(0.06666666666666667 AS DOUBLE)
              END AS fraction
            FROM (
              SELECT
                1 * d0.d + 10 * d1.d AS j
              FROM (VALUES
                (0),
                (1),
                (2),
                (3),
                (4),
                (5),
                (6),
                (7),
                (8),
                (9)) AS d0(d)
              CROSS JOIN (VALUES
                (0),
                (1),
                (2),
                (3),
                (4),
                (5),
                (6),
                (7),
                (8),
                (9)) AS d1(d)
            ) AS numbers
            WHERE
              j <= 15
          ) AS fractions
        ) AS cuts
        WHERE
          cuts.j BETWEEN 1 AND 15 - 1
      ) AS levels
    ), edges AS (
      SELECT
        p.slice_1,
        p.slice_2,
        CASE
          WHEN p.t >= CAST(0.5 AS DOUBLE)
          THEN b.score - (
            b.score - a.score
          ) * (
            1 - p.t
          )
          ELSE a.score + (
            b.score - a.score
          ) * p.t
        END AS edge
      FROM positions AS p
      JOIN bin_ranked AS a
        ON p.slice_1 IS NOT DISTINCT FROM a.slice_1
        AND p.slice_2 IS NOT DISTINCT FROM a.slice_2
        AND p.lower >= a.below
        AND p.lower < a.below + a.n
      JOIN bin_ranked AS b
        ON p.slice_1 IS NOT DISTINCT FROM b.slice_1
        AND p.slice_2 IS NOT DISTINCT FROM b.slice_2
        AND p.upper >= b.below
        AND p.upper < b.below + b.n
    ), quantile_binned AS (
      /* score row (unique per slice) counts the edges below it whatever */
      /* the order of equal edges */
      SELECT
        slice_1,
        slice_2,
        value AS score,
        n,
        w,
        w_pos,
        is_edge,
        SUM(is_edge) OVER (
          PARTITION BY slice_1, slice_2
          ORDER BY value ASC, is_edge ASC
          RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS edges_below
      FROM (
        SELECT
          slice_1,
          slice_2,
          score AS value,
          n,
          w,
          w_pos,
          0 AS is_edge
        FROM bin_scores
        WHERE
          FALSE
        UNION ALL
        SELECT
          slice_1,
          slice_2,
          edge,
          NULL,
          NULL,
          NULL,
          1
        FROM edges
      ) AS scores_and_edges
    )
    SELECT
      slice_1,
      slice_2,
      score,
      n,
      w,
      w_pos,
      c - CASE
        WHEN c >= 1 AND CAST(c AS DOUBLE) * CAST(0.06666666666666667 AS DOUBLE) >= score
        THEN 1
        ELSE 0
      END + CASE
        WHEN c + 1 <= 15 - 1
        AND CAST(c + 1 AS DOUBLE) * CAST(0.06666666666666667 AS DOUBLE) < score
        THEN 1
        ELSE 0
      END AS bin
    FROM uniform_guess
    UNION ALL
    SELECT
      slice_1,
      slice_2,
      score,
      n,
      w,
      w_pos,
      CAST(edges_below AS BIGINT) AS bin
    FROM quantile_binned
    WHERE
      is_edge = 0
  ) AS binned
  GROUP BY
    slice_1,
    slice_2,
    bin
), query_rows AS (
  /* query_rows: the used rows of the source with their query, as positive and negative */
  /* weight. Read by the metrics that sort within each query (gauc): sorting the rows of */
  /* each query is cheaper than first building a query x score histogram. */
  SELECT
    slice_1,
    slice_2,
    query,
    score,
    CASE WHEN label = 1 THEN w ELSE 0 END AS w_pos,
    CASE WHEN label = 1 THEN 0 ELSE w END AS w_neg
  FROM input
  WHERE
    NOT w IS NULL
)
/* the result: one row per slice, every metric joined by slice */
SELECT
  row_counts.slice_1 AS "day",
  row_counts.slice_2 AS "country",
  row_counts.n_rows,
  row_counts.n_excluded,
  m_accuracy.accuracy AS accuracy,
  m_auc.auc AS auc,
  m_average_precision.average_precision AS average_precision,
  m_balanced_accuracy.balanced_accuracy AS balanced_accuracy,
  m_brier.brier AS brier,
  m_brier_reliability.brier_reliability AS brier_reliability,
  m_brier_resolution.brier_resolution AS brier_resolution,
  m_brier_uncertainty.brier_uncertainty AS brier_uncertainty,
  m_calibration.calibration AS calibration,
  m_ece.ece AS ece,
  m_f1.f1 AS f1,
  m_fbeta.fbeta AS fbeta,
  m_fn.fn AS fn,
  m_fp.fp AS fp,
  m_gauc.gauc AS gauc,
  COALESCE(m_gauc.gauc_groups, 0) AS gauc_groups,
  COALESCE(m_gauc.gauc_skipped, 0) AS gauc_skipped,
  m_label_mean.label_mean AS label_mean,
  m_logloss.logloss AS logloss,
  m_logloss_reliability.logloss_reliability AS logloss_reliability,
  m_logloss_resolution.logloss_resolution AS logloss_resolution,
  m_logloss_uncertainty.logloss_uncertainty AS logloss_uncertainty,
  m_mcc.mcc AS mcc,
  m_ne.ne AS ne,
  m_precision.precision AS precision,
  m_recall.recall AS recall,
  m_rig.rig AS rig,
  m_score_mean.score_mean AS score_mean,
  m_specificity.specificity AS specificity,
  m_tn.tn AS tn,
  m_tp.tp AS tp
FROM row_counts
LEFT JOIN m_accuracy
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_accuracy.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_accuracy.slice_2
LEFT JOIN m_auc
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_auc.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_auc.slice_2
LEFT JOIN m_average_precision
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_average_precision.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_average_precision.slice_2
LEFT JOIN m_balanced_accuracy
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_balanced_accuracy.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_balanced_accuracy.slice_2
LEFT JOIN m_brier
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_brier.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_brier.slice_2
LEFT JOIN m_brier_reliability
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_brier_reliability.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_brier_reliability.slice_2
LEFT JOIN m_brier_resolution
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_brier_resolution.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_brier_resolution.slice_2
LEFT JOIN m_brier_uncertainty
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_brier_uncertainty.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_brier_uncertainty.slice_2
LEFT JOIN m_calibration
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_calibration.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_calibration.slice_2
LEFT JOIN m_ece
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_ece.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_ece.slice_2
LEFT JOIN m_f1
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_f1.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_f1.slice_2
LEFT JOIN m_fbeta
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_fbeta.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_fbeta.slice_2
LEFT JOIN m_fn
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_fn.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_fn.slice_2
LEFT JOIN m_fp
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_fp.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_fp.slice_2
LEFT JOIN m_gauc
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_gauc.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_gauc.slice_2
LEFT JOIN m_label_mean
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_label_mean.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_label_mean.slice_2
LEFT JOIN m_logloss
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_logloss.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_logloss.slice_2
LEFT JOIN m_logloss_reliability
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_logloss_reliability.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_logloss_reliability.slice_2
LEFT JOIN m_logloss_resolution
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_logloss_resolution.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_logloss_resolution.slice_2
LEFT JOIN m_logloss_uncertainty
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_logloss_uncertainty.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_logloss_uncertainty.slice_2
LEFT JOIN m_mcc
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_mcc.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_mcc.slice_2
LEFT JOIN m_ne
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_ne.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_ne.slice_2
LEFT JOIN m_precision
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_precision.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_precision.slice_2
LEFT JOIN m_recall
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_recall.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_recall.slice_2
LEFT JOIN m_rig
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_rig.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_rig.slice_2
LEFT JOIN m_score_mean
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_score_mean.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_score_mean.slice_2
LEFT JOIN m_specificity
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_specificity.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_specificity.slice_2
LEFT JOIN m_tn
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_tn.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_tn.slice_2
LEFT JOIN m_tp
  ON row_counts.slice_1 IS NOT DISTINCT FROM m_tp.slice_1
  AND row_counts.slice_2 IS NOT DISTINCT FROM m_tp.slice_2
CROSS JOIN checks
WHERE
  checks.failure IS NULL
ORDER BY
  row_counts.slice_1 ASC,
  row_counts.slice_2 ASC
