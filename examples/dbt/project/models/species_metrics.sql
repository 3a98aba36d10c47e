{{ config(materialized='table') }}
{{ sqlmetrics.evaluate(ref('impressions'), metrics=['accuracy', 'f1:average=weighted', 'cohen_kappa', 'auc'],
                       label='species', prediction='guess', by=['country'],
                       class_scores={'setosa': 'p_setosa', 'versicolor': 'p_versicolor', 'virginica': 'p_virginica'}) }}
