m_cohen_kappa AS (
  WITH m_cohen_kappa_totals AS (
    /* cohen_kappa: Cohen's kappa of predicted and true classes, scikit-learn's */
    /* cohen_kappa_score(y, y_hat, weights=..., sample_weight=w): */
    /*   κ = 1 − Σ_ij d_ij·C_ij / Σ_ij d_ij·E_ij = 1 − (Σ_ij d_ij·C_ij / n) / Σ_ij d_ij·(t_i/n)·(p_j/n) */
    /* over the slice's classes, C_ij the weight of rows of true class i predicted as j, */
    /* E_ij = t_i·p_j / n their weight expected by chance (t_i, p_j: the true and predicted */
    /* weight of a class; n: the total weight), and d_ij the disagreement of i and j, with */
    /* r the position of a class among the slice's classes in sorted order (1, 2, ...): */
    /*   'none'       0 when i = j, else 1: κ = (p_o − p_e) / (1 − p_e) */
    /*   'linear'     |r_i − r_j| */
    /*   'quadratic'  (r_i − r_j)² */
    /* The slice's classes are those present as a label or a prediction (scikit-learn's */
    /* labels); linear and quadratic weights read their order (numbers by value, strings as */
    /* text), so they suit ordinal classes. NULL when the expected disagreement is 0 (one */
    /* class carries all the weight on both sides; scikit-learn: nan) and on an empty slice. */
    SELECT
      slice_1,
      slice_2,
      SUM(support) AS n
    FROM class_counts
    GROUP BY
      slice_1,
      slice_2
  ), m_cohen_kappa_ranked_classes AS (
    /* each class's true and predicted weight as a share of the slice's: the products */
    /* t_i·p_j are taken over shares, so weights of any size (1e-300 .. 1e300) are exact */
    SELECT
      c.slice_1,
      c.slice_2,
      c.class,
      c.support / CAST(NULLIF(t.n, 0) AS DOUBLE) AS support_share,
      c.predicted / CAST(NULLIF(t.n, 0) AS DOUBLE) AS predicted_share,
      DENSE_RANK() OVER (PARTITION BY c.slice_1, c.slice_2 ORDER BY c.class ASC) AS r
    FROM class_counts AS c
    JOIN m_cohen_kappa_totals AS t
      ON c.slice_1 IS NOT DISTINCT FROM t.slice_1
      AND c.slice_2 IS NOT DISTINCT FROM t.slice_2
  ), m_cohen_kappa_class_pairs AS (
    /* every ordered pair (i, j) of the slice's classes: its disagreement d and t_i·p_j / n² */
    SELECT
      t.slice_1,
      t.slice_2,
      t.class AS true_class,
      p.class AS predicted_class,
      t.support_share * p.predicted_share AS chance,
      CASE WHEN t.r = p.r THEN 0 ELSE 1 END AS d
    FROM m_cohen_kappa_ranked_classes AS t
    JOIN m_cohen_kappa_ranked_classes AS p
      ON t.slice_1 IS NOT DISTINCT FROM p.slice_1
      AND t.slice_2 IS NOT DISTINCT FROM p.slice_2
  ), m_cohen_kappa_disagreement AS (
    SELECT
      pairs.slice_1,
      pairs.slice_2,
      SUM(pairs.d * COALESCE(c.w, 0)) AS observed,
      SUM(pairs.d * pairs.chance) AS chance
    FROM m_cohen_kappa_class_pairs AS pairs
    LEFT JOIN class_confusion AS c
      ON pairs.slice_1 IS NOT DISTINCT FROM c.slice_1
      AND pairs.slice_2 IS NOT DISTINCT FROM c.slice_2
      AND c.true_class = pairs.true_class
      AND c.predicted_class = pairs.predicted_class
    GROUP BY
      pairs.slice_1,
      pairs.slice_2
  )
  SELECT
    totals.slice_1,
    totals.slice_2,
    1 - d.observed / CAST(NULLIF(totals.n, 0) AS DOUBLE) / CAST(NULLIF(d.chance, 0) AS DOUBLE) AS cohen_kappa
  FROM m_cohen_kappa_totals AS totals
  JOIN m_cohen_kappa_disagreement AS d
    ON totals.slice_1 IS NOT DISTINCT FROM d.slice_1
    AND totals.slice_2 IS NOT DISTINCT FROM d.slice_2
)
