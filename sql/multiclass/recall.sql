-- multiclass_recall: recall_c = tp_c / support_c for every class c of the slice,
-- averaged as scikit-learn's recall_score(average=..., zero_division=np.nan):
--   macro     the mean over the classes that occur as labels (a class that is only
--             predicted has no recall and is left out)
--   weighted  their mean weighted by support_c: Σ tp / Σ support
--   micro     Σ tp / Σ support (= accuracy)
-- NULL on an empty slice (or all weights 0).
--
-- reads:  class_counts({{ by }}, class, tp, support, predicted)
-- params: {{ average }} -- 'macro' (default), 'micro' or 'weighted'
-- output: {{ by }}, recall
SELECT {{ by }},
       CASE {{ average }}
           WHEN 'macro' THEN AVG(tp / CAST(NULLIF(support, 0) AS DOUBLE))
           ELSE SUM(tp) / CAST(NULLIF(SUM(support), 0) AS DOUBLE)
       END AS recall
FROM class_counts
GROUP BY {{ by }}
