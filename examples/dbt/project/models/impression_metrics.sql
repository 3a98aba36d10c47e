{{ config(materialized='table') }}
{{ sqlmetrics.evaluate(ref('impressions'), metrics=['auc', 'gauc', 'logloss', 'ndcg@10'],
                       label='click', score='pctr', query='user_id', by=['day']) }}
