-- multiclass_auc: one-vs-rest AUC averaged over the classes, scikit-learn's
-- roc_auc_score(y, scores, multi_class="ovr", average=...). For each class c, AUC_c is
-- the binary AUC (classification/auc.sql) of "true class is c" against c's score:
--   AUC_c = (W⁺·W⁻ + Σ_neg w·tp − Σ_pos w·fp) / (2·W⁺·W⁻), tp and fp taking ties,
-- NULL when the slice has no positive or no negative weight for c (a degenerate class,
-- for which scikit-learn raises). Degenerate classes are left out of the average and
-- counted in auc_skipped; auc_classes counts the classes averaged:
--   macro     the mean of AUC_c over the classes with one
--   weighted  Σ W⁺_c·AUC_c / Σ W⁺_c over them (W⁺_c, the class's true weight: prevalence)
-- NULL when no class has an AUC.
--
-- reads:  class_score_cum({{ by }}, class, w_pos, w_neg, tp, fp): per class, score_cum of
--         its histogram
-- params: {{ average }} -- 'macro' (default) or 'weighted'
-- output: {{ by }}, auc, auc_classes, auc_skipped
WITH per_class AS (
    SELECT {{ by }}, class, SUM(w_pos) AS support,
           (SUM(w_pos) * SUM(w_neg) + SUM(w_neg * tp) - SUM(w_pos * fp))
           / CAST(NULLIF(2 * SUM(w_pos) * SUM(w_neg), 0) AS DOUBLE) AS value
    FROM class_score_cum
    GROUP BY {{ by }}, class
)
SELECT {{ by }},
       CASE {{ average }}
           WHEN 'weighted' THEN SUM(support * value) / CAST(NULLIF(SUM(CASE WHEN value IS NOT NULL THEN support END), 0) AS DOUBLE)
           ELSE AVG(value)
       END AS auc,
       COUNT(value) AS auc_classes,
       COUNT(*) - COUNT(value) AS auc_skipped
FROM per_class
GROUP BY {{ by }}
