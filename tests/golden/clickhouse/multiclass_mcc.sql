m_mcc AS (
  WITH m_mcc_slice_weights AS (
    /* multiclass_mcc: the Matthews correlation coefficient in its multi-class form */
    /* (scikit-learn's matthews_corrcoef; with two classes, the binary MCC): */
    /*   MCC = (c·n − Σ_k t_k·p_k) / √((n² − Σ_k p_k²)·(n² − Σ_k t_k²)) */
    /* with n the total weight, c = Σ tp the weight of correct rows, t_k = support and */
    /* p_k = predicted weight of class k. NULL when all weight is predicted as one class or */
    /* belongs to one true class (the denominator is 0; scikit-learn returns 0.0 there): */
    /* tested on the classes that carry weight, not on the rounded denominator. Each count */
    /* is divided by n first (the same value), so that no product of weights overflows or */
    /* underflows. */
    SELECT
      slice_1,
      slice_2,
      SUM(support) AS n
    FROM class_counts
    GROUP BY
      slice_1,
      slice_2
  ), m_mcc_shares AS (
    SELECT
      c.slice_1 AS slice_1,
      c.slice_2 AS slice_2,
      c.tp / CAST(nullIf(s.n, 0) AS Nullable(Float64)) AS tp,
      c.support / CAST(nullIf(s.n, 0) AS Nullable(Float64)) AS support,
      c.predicted / CAST(nullIf(s.n, 0) AS Nullable(Float64)) AS predicted
    FROM class_counts AS c
    JOIN m_mcc_slice_weights AS s
      ON c.slice_1 IS NOT DISTINCT FROM s.slice_1
      AND c.slice_2 IS NOT DISTINCT FROM s.slice_2
  ), m_mcc_totals AS (
    SELECT
      slice_1,
      slice_2,
      SUM(support) AS n,
      SUM(tp) AS correct,
      SUM(support * predicted) AS agreement,
      SUM(predicted * predicted) AS predicted_squares,
      SUM(support * support) AS support_squares,
      CAST(COUNT(CASE WHEN predicted > 0 THEN 1 END) AS Nullable(Int64)) AS predicted_classes,
      CAST(COUNT(CASE WHEN support > 0 THEN 1 END) AS Nullable(Int64)) AS true_classes
    FROM m_mcc_shares AS shares
    GROUP BY
      slice_1,
      slice_2
  )
  SELECT
    slice_1,
    slice_2,
    CASE
      WHEN predicted_classes > 1 AND true_classes > 1
      THEN (
        correct * n - agreement
      ) / SQRT((
        n * n - predicted_squares
      ) * (
        n * n - support_squares
      ))
    END AS mcc
  FROM m_mcc_totals AS totals
)
