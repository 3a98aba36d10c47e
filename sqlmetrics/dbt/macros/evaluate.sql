{#- sqlmetrics.evaluate: the table sm.evaluate returns, as ONE statement that reads the
    source once, assembled as sqlmetrics/compose/ assembles it: input, base (one
    aggregation), checks (the input rules, failing the model with Python's messages),
    row_counts, the ranking steps, each shared step once, one step per metric, and the
    final SELECT joining them by slice. The steps are the library's own, written per
    dialect (steps_<dialect>.sql, found with adapter.dispatch); what the composer decides
    from the call, this macro decides from the table in catalog.sql. Metrics are named as in
    Python: 'auc', 'ndcg@10', with parameters as 'fbeta:beta=2' or
    'ndcg@10:gain=linear:ties=pessimistic'; with prediction= (the predicted class column),
    'accuracy', 'f1', 'mcc', ... are the multi-class metrics, and with class_scores=
    ({class: score column}, wide) 'auc' and 'average_precision' the one-vs-rest ones, as
    in Python. A role a family adds (catalog.roles) is a keyword too, as in Python
    (exposure='e'): its column read as a number under the role's name, a row with it
    NULL left out, its input rule checked. -#}
{% macro evaluate(relation, metrics, label='label', score=none, query=none, item=none, weight=none, by=none, prediction=none, class_scores=none) %}
  {%- for key in kwargs if key in ['ci', 'ci_method', 'ci_unit', 'resamples', 'seed'] -%}
    {%- do exceptions.raise_compiler_error("sqlmetrics: intervals (ci=) are not carried by the dbt package (got " ~ key ~ "=): sm.evaluate(..., ci=0.95) computes them, and sm.to_sql(..., ci=0.95, dialect=...) writes their statement for a warehouse table") -%}
  {%- endfor -%}
  {%- set catalog = fromjson(sqlmetrics.sm_catalog()) -%}
  {%- for key in kwargs if key not in catalog.roles -%}
    {%- do exceptions.raise_compiler_error("sqlmetrics: evaluate: unknown argument '" ~ key ~ "' (arguments: " ~ (['relation', 'metrics', 'label', 'score', 'query', 'item', 'weight', 'by', 'prediction', 'class_scores'] + catalog.roles) | join(', ') ~ ")") -%}
  {%- endfor -%}
  {%- set dispatch = adapter.dispatch -%}
  {%- set facts = fromjson(dispatch('sm_facts', 'sqlmetrics')()) -%}
  {%- if metrics is not string and (metrics is not iterable or metrics is mapping) -%}
    {%- do sqlmetrics.sm_fail("metrics must be a metric name or a list of them, got " ~ sqlmetrics.sm_repr(metrics)) -%}
  {%- endif -%}
  {%- set calls = [] -%}
  {%- for text in ([metrics] if metrics is string else metrics) -%}
    {%- do sqlmetrics.sm_call(text, catalog, calls, {'prediction': prediction is not none, 'class_scores': class_scores is not none}) -%}
  {%- endfor -%}
  {%- if calls | length == 0 -%}{%- do exceptions.raise_compiler_error("sqlmetrics: no metrics given") -%}{%- endif -%}
  {%- set outputs = ['n_rows', 'n_excluded'] -%}  {#- the result's columns but the slices, each once (registry.resolve) -#}
  {%- set producing = {} -%}
  {%- for call in calls -%}
    {%- set columns = [call.column] -%}
    {%- for out in call.spec.outputs -%}{%- do columns.append(call.column ~ '_' ~ out) -%}{%- endfor -%}
    {%- for column in columns -%}
      {%- if column in producing -%}
        {%- do sqlmetrics.sm_fail("metrics " ~ producing[column].shown ~ " and " ~ call.shown ~ " both produce the column " ~ sqlmetrics.sm_repr(column)) -%}
      {%- endif -%}
      {%- do producing.update({column: call}) -%}
      {%- do outputs.append(column) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if by is not none and by is not string and (by is not sequence or by is mapping) -%}
    {%- do sqlmetrics.sm_fail("by must be a column name or a list of column names, got " ~ sqlmetrics.sm_repr(by)) -%}
  {%- endif -%}
  {%- set by = [by] if by is string else (by or []) | list -%}
  {%- set reading = {'score': [], 'prediction': [], 'class_scores': [], 'query': []} -%}  {#- the calls reading each role -#}
  {%- for call in calls -%}{%- for role in call.spec.needs if role in reading -%}{%- do reading[role].append(call) -%}{%- endfor -%}{%- endfor -%}
  {%- set score = 'score' if score is none and reading.score else score -%}
  {%- set given = {'label': label, 'score': score, 'prediction': prediction, 'query': query, 'item': item, 'weight': weight} -%}
  {%- set added = [] -%}  {#- the roles the families add that the calls read, as Python's Binding.generic_roles -#}
  {%- for role in catalog.roles -%}
    {%- do given.update({role: kwargs.get(role)}) -%}
    {%- for call in calls if role in call.spec.needs -%}
      {%- if given[role] is none -%}
        {%- do exceptions.raise_compiler_error("sqlmetrics: " ~ call.column ~ " reads the " ~ role ~ " column: pass " ~ role ~ "=<its column>") -%}
      {%- endif -%}
      {%- if role not in added -%}{%- do added.append(role) -%}{%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set names = {} -%}
  {%- for role in ['label', 'score', 'prediction', 'query', 'item', 'weight'] + catalog.roles if given[role] is not none -%}
    {%- do names.update({role: sqlmetrics.sm_plain(given[role], role)}) -%}
  {%- endfor -%}
  {%- for name in by -%}{%- do sqlmetrics.sm_plain(name, 'by') -%}{%- endfor -%}
  {%- set wide = [] -%}
  {%- set kind = sqlmetrics.sm_classes(class_scores, wide) | trim if class_scores is not none else '' -%}
  {%- set ranking = calls | selectattr('spec.family', 'equalto', 'ranking') | list | length > 0 -%}
  {%- set needs_query = reading.query | length > 0 -%}
  {%- if needs_query and query is none -%}
    {%- do exceptions.raise_compiler_error("sqlmetrics: " ~ (reading.query | map(attribute='column') | join(', ')) ~ " averages over queries: pass query= (the user/request/query id column)") -%}
  {%- endif -%}
  {%- if reading.prediction and prediction is none -%}
    {%- do exceptions.raise_compiler_error("sqlmetrics: " ~ (reading.prediction | map(attribute='name') | join(', ')) ~ ": a multi-class metric compares the predicted class with the label: pass prediction=<the predicted class column>") -%}
  {%- endif -%}
  {%- if reading.class_scores and class_scores is none -%}
    {%- do exceptions.raise_compiler_error("sqlmetrics: " ~ (reading.class_scores | map(attribute='name') | join(', ')) ~ ": a one-vs-rest metric reads one score per class: pass class_scores={class: score column} (wide: the dbt package reads no long scores)") -%}
  {%- endif -%}
  {%- if ranking and weight is not none -%}
    {%- do sqlmetrics.sm_fail((calls | rejectattr('spec.weighted') | map(attribute='column') | join(', ')) ~ " take no row weights (a ranking metric orders rows, it does not weigh them): evaluate them in a call without weight=") -%}
  {%- endif -%}
  {%- set by_item = [] -%}
  {%- for call in calls if call.params.get('ties') == 'item' -%}{%- do by_item.append(call.column) -%}{%- endfor -%}
  {%- if by_item and item is none -%}
    {%- do sqlmetrics.sm_fail((by_item | join(', ')) ~ " break ties by item: pass item=<the item/document id column>") -%}
  {%- endif -%}
  {%- if by | unique(case_sensitive=true) | list | length != by | length -%}{%- do sqlmetrics.sm_fail("by lists a column twice: " ~ (by | string)) -%}{%- endif -%}
  {%- set clashes = by | select('in', outputs) | unique(case_sensitive=true) | sort(case_sensitive=true) | list -%}
  {%- if clashes -%}{%- do sqlmetrics.sm_fail("slice column(s) " ~ (clashes | string) ~ " clash with result columns of the same name") -%}{%- endif -%}
  {%- set slices = [] -%}
  {%- for name in by -%}{%- do slices.append('slice_' ~ loop.index) -%}{%- endfor -%}
  {%- set slices = slices or ['slice_0'] -%}
  {%- set c0 = {'slices': slices, 'by': slices | join(', '), 'names': names} -%}
  {%- set steps = [] -%}

  {#- input: the source under canonical names (the only step naming its columns); the
      label as a number where a metric reads it as one, and the true and predicted class
      as they are (never cast: classes may be strings) -#}
  {%- set numeric_label = calls | rejectattr('spec.label_domain', 'equalto', 'class') | list | length > 0 -%}
  {%- set classes = ['true_class', 'predicted_class'] if prediction is not none else (['true_class'] if wide else []) -%}
  {%- set q = {} -%}
  {%- for role, name in names.items() -%}{%- do q.update({role: facts.quoted.replace('sm__x__', name)}) -%}{%- endfor -%}
  {%- set columns = [] -%}
  {%- for name in by -%}{%- do columns.append(facts.quoted.replace('sm__x__', name) ~ ' AS slice_' ~ loop.index) -%}{%- endfor -%}
  {%- if not by -%}{%- do columns.append('0 AS slice_0') -%}{%- endif -%}
  {%- if numeric_label -%}{%- do columns.append(facts.double.replace('sm__x__', q.label) ~ ' AS label') -%}{%- endif -%}
  {%- if score is not none -%}{%- do columns.append(facts.double.replace('sm__x__', q.score) ~ ' AS score') -%}{%- endif -%}
  {%- for role, key in [('label', 'true_class'), ('prediction', 'predicted_class')] if key in classes -%}
    {%- do columns.append(q[role] ~ ' AS ' ~ key) -%}
  {%- endfor -%}
  {%- for k in wide -%}{%- do columns.append(facts.double.replace('sm__x__', facts.quoted.replace('sm__x__', k.column)) ~ ' AS class_score_' ~ loop.index) -%}{%- endfor -%}
  {%- set one = facts.double.replace('sm__x__', q.weight if weight is not none else '1') -%}
  {%- if weight is not none -%}{%- do columns.append(one ~ ' AS weight') -%}{%- endif -%}
  {%- for role in added -%}{%- do columns.append(facts.double.replace('sm__x__', q[role]) ~ ' AS ' ~ role) -%}{%- endfor -%}
  {%- set excluded = [] -%}
  {%- for role in ['label', 'score', 'prediction', 'query', 'item', 'weight'] + added if role in q and (role != 'item' or ranking) -%}
    {%- do excluded.append(q[role] ~ ' IS NULL') -%}
  {%- endfor -%}
  {%- for k in wide -%}{%- do excluded.append(facts.quoted.replace('sm__x__', k.column) ~ ' IS NULL') -%}{%- endfor -%}
  {%- do columns.append('CASE WHEN ' ~ (excluded | join(' OR ')) ~ ' THEN NULL ELSE ' ~ one ~ ' END AS w') -%}
  {%- if needs_query -%}{%- do columns.append(q.query ~ ' AS query') -%}{%- endif -%}
  {%- if ranking -%}{%- do columns.append((q.item if item is not none else 'NULL') ~ ' AS item') -%}{%- endif -%}
  {%- do steps.append('input AS (SELECT ' ~ (columns | join(', ')) ~ ' FROM ' ~ relation ~ ')') -%}

  {#- the steps the metrics read, each once, in the composer's order -#}
  {%- set needed = [] -%}
  {%- for call in calls -%}{%- for name in call.spec.steps if name not in needed -%}{%- do needed.append(name) -%}{%- endfor -%}{%- endfor -%}

  {#- base: one row per slice (and score and label for the histogram, label for a 0/1 or
      relevance label; the true and predicted class for the multi-class metrics) -#}
  {%- set histogram = calls | selectattr('spec.histogram') | list | length > 0 -%}
  {%- set real = calls | selectattr('spec.label_domain', 'equalto', 'real') | list | length > 0 -%}
  {%- set keys = (['score', 'label'] if histogram else ([] if real or not numeric_label else ['label'])) + classes -%}
  {%- set rules = [] -%}
  {%- do sqlmetrics.sm_rules(catalog, calls, weight is not none, rules) -%}
  {%- set aggregates = [dispatch('sm_base__counts', 'sqlmetrics')(c0)] -%}
  {%- for name in needed if catalog.steps[name].sums -%}{%- do aggregates.append(dispatch('sm_base__sums__' ~ name, 'sqlmetrics')(c0)) -%}{%- endfor -%}
  {%- for rule in rules if rule.role not in keys -%}{%- do aggregates.append(dispatch('sm_base__bad__' ~ rule.name, 'sqlmetrics')(c0)) -%}{%- endfor -%}
  {%- set grouped = (slices if by else []) + keys -%}
  {%- set base -%}
SELECT {{ '' if by else '0 AS slice_0, ' }}{{ (grouped + aggregates) | join(', ') }} FROM input{{ (' GROUP BY ' ~ (grouped | join(', '))) if grouped }}
  {%- endset -%}
  {%- do steps.append('base AS ' ~ facts.materialized ~ '(' ~ base ~ ')') -%}

  {#- checks: the first rule the data breaks fails the statement with its message -#}
  {%- set whens = [] -%}
  {%- for rule in rules -%}
    {%- set c = {'slices': slices, 'by': c0.by, 'names': names, 'scope': rule.scope} -%}
    {%- do whens.append(dispatch('sm_check__' ~ rule.name ~ ('__key' if rule.role in keys else '__counter'), 'sqlmetrics')(c)) -%}
  {%- endfor -%}
  {%- if weight is not none -%}{%- do whens.append(dispatch('sm_check__weight_total', 'sqlmetrics')(c0)) -%}{%- endif -%}
  {%- do steps.append('checks AS (' ~ (('SELECT CASE ' ~ (whens | join(' ')) ~ ' END AS failure FROM base') if whens else 'SELECT NULL AS failure') ~ ')') -%}
  {%- do steps.append('row_counts AS (' ~ dispatch('sm_step__row_counts__' ~ ('s' if by else 'u'), 'sqlmetrics')(c0) ~ ')') -%}

  {#- ranking: the judged rows, and per list the floors the metrics rank down to -#}
  {%- if ranking -%}
    {%- do steps.append('ideal_rows AS (' ~ dispatch('sm_step__ideal_rows', 'sqlmetrics')(c0) ~ ')') -%}
    {%- set floors = sqlmetrics.sm_list_floors(calls, c0, dispatch, facts.native) | trim -%}
    {%- if floors -%}{%- do steps.append('list_floors AS (' ~ floors ~ ')') -%}{%- endif -%}
  {%- endif -%}

  {#- wide class scores: one row per used row and class -#}
  {%- set cc = {'slices': slices, 'by': c0.by, 'names': names, 'classes': wide} -%}
  {%- if wide -%}{%- do steps.append('class_score_rows AS (' ~ dispatch('sm_step__class_score_rows__' ~ kind, 'sqlmetrics')(cc) ~ ')') -%}{%- endif -%}

  {#- the shared steps, each once; a step taken per parameter value, once per value in use, stacked -#}
  {%- for name in needed -%}
    {%- set declared = catalog.steps[name] -%}
    {%- if declared.each -%}
      {%- set parts = [] -%}
      {%- set combinations = [] -%}
      {%- do sqlmetrics.sm_combinations(calls, name, declared.each, combinations) -%}
      {%- for values in combinations -%}
        {%- set c = {'slices': slices, 'by': c0.by, 'names': names, 'p': values} -%}
        {%- do parts.append(dispatch('sm_step__' ~ name ~ '__' ~ sqlmetrics.sm_key(declared.keyed, values), 'sqlmetrics')(c)) -%}
      {%- endfor -%}
      {%- do steps.append(name ~ ' AS (' ~ (parts | join(' UNION ALL ')) ~ ')') -%}
    {%- else -%}
      {%- do steps.append(dispatch('sm_step__' ~ name ~ '__one', 'sqlmetrics')(c0)) -%}
    {%- endif -%}
  {%- endfor -%}

  {#- the class-score rules: a class's NaN scores, a label no class is scored for -#}
  {%- if wide -%}
    {%- do steps.append('class_nan AS (' ~ dispatch('sm_step__class_nan', 'sqlmetrics')() ~ ')') -%}
    {%- do steps.append('class_checks AS (' ~ dispatch('sm_step__class_checks__' ~ kind, 'sqlmetrics')(cc) ~ ')') -%}
  {%- endif -%}

  {#- one step per metric, its template from sql/ (one macro of its forms: per parameter, weighted or not) -#}
  {%- for call in calls -%}
    {%- set c = {'slices': slices, 'by': c0.by, 'names': names, 'p': call.params, 'column': call.column, 'weighted': weight is not none} -%}
    {%- do steps.append(dispatch('sm_metric__' ~ call.name.replace('@', '_at_'), 'sqlmetrics')(c)) -%}
  {%- endfor -%}

  {#- the result: one row per slice, every metric joined by slice -#}
  {%- set selected = [] -%}
  {%- for name in by -%}{%- do selected.append('row_counts.slice_' ~ loop.index ~ ' AS ' ~ facts.quoted.replace('sm__x__', name)) -%}{%- endfor -%}
  {%- do selected.append('row_counts.n_rows, row_counts.n_excluded') -%}
  {%- set joins = [] -%}
  {%- for call in calls -%}
    {%- set cte = 'm_' ~ call.column -%}
    {%- do selected.append(cte ~ '.' ~ call.spec.base ~ ' AS ' ~ call.column) -%}
    {%- for out in call.spec.outputs -%}{%- do selected.append('COALESCE(' ~ cte ~ '.' ~ call.spec.base ~ '_' ~ out ~ ', 0) AS ' ~ call.column ~ '_' ~ out) -%}{%- endfor -%}
    {%- set same = [] -%}
    {%- for s in slices -%}{%- do same.append('row_counts.' ~ s ~ ' IS NOT DISTINCT FROM ' ~ cte ~ '.' ~ s) -%}{%- endfor -%}
    {%- do joins.append('LEFT JOIN ' ~ cte ~ ' ON ' ~ (same | join(' AND '))) -%}
  {%- endfor -%}
  {%- set order = [] -%}
  {%- for s in slices if by -%}{%- do order.append(facts.order.replace('sm__x__', s)) -%}{%- endfor -%}
WITH {{ steps | join(', ') }} SELECT {{ selected | join(', ') }} FROM row_counts {{ joins | join(' ') }} CROSS JOIN checks{{ ' CROSS JOIN class_checks' if wide }} WHERE checks.failure IS NULL{{ ' AND class_checks.failure IS NULL' if wide }}{{ (' ORDER BY ' ~ (order | join(', '))) if order }}
{%- endmacro %}


{#- A column name of the call: the package writes plain identifiers (letters, digits, _). -#}
{% macro sm_plain(name, role) %}
  {%- if name is not string or not name.replace('_', 'a').isalnum() or name[0].isdigit() -%}
    {%- do exceptions.raise_compiler_error("sqlmetrics: " ~ role ~ "= must be a plain column name (letters, digits, _) in the dbt package, got " ~ name) -%}
  {%- endif -%}
  {{- name -}}
{% endmacro %}


{#- A macro's key: the value of each parameter that keys it ('set' for a number). -#}
{% macro sm_key(keyed, values) %}
  {%- set parts = [] -%}
  {%- for name in keyed -%}
    {%- set value = values[name] -%}
    {%- do parts.append(name ~ '_' ~ ('none' if value is none else (value if value is string else 'set'))) -%}
  {%- endfor -%}
  {{- parts | join('__') or 'one' -}}
{% endmacro %}


{#- The distinct values of ``params`` among the calls reading step ``name``, appended to
    ``out`` (in the calls' order: the stacked parts' order changes no number). -#}
{% macro sm_combinations(calls, name, params, out) %}
  {%- set seen = [] -%}
  {%- for call in calls if name in call.spec.steps -%}
    {%- set values = {} -%}
    {%- for p in params -%}{%- do values.update({p: call.params.get(p)}) -%}{%- endfor -%}
    {%- set key = values | dictsort | map('string') | join(',') -%}
    {%- if key not in seen -%}{%- do seen.append(key) -%}{%- do out.append(values) -%}{%- endif -%}
  {%- endfor -%}
{% endmacro %}


{#- The input rules the calls take (rules/columns.py's checks_for), each with the scope
    of its message, appended to ``out``. -#}
{% macro sm_rules(catalog, calls, weighted, out) %}
  {%- for rule in catalog.rules -%}
    {%- set taking = [] -%}
    {%- for call in calls -%}
      {%- set s = call.spec -%}
      {%- set takes = (rule.role in s.needs) if rule.role in catalog.roles else {
          'label': s.label_domain == 'binary',
          'relevance': s.label_domain == 'relevance',
          'exponential_gain': call.params.get('gain') == 'exponential',
          'linear_gain': call.params.get('gain') == 'linear',
          'target': s.label_domain == 'real',
          'nan': 'score' in s.needs,
          'inf': s.score_domain in ('finite', 'probability'),
          'probability': s.score_domain == 'probability',
          'weight': false}[rule.name] -%}
      {%- if takes -%}{%- do taking.append(call.column) -%}{%- endif -%}
    {%- endfor -%}
    {%- if rule.name == 'nan' and taking | length == calls | length -%}
      {%- do out.append({'name': rule.name, 'role': rule.role, 'scope': ''}) -%}  {#- every metric reads the score -#}
    {%- elif rule.name == 'weight' and weighted -%}
      {%- do out.append({'name': rule.name, 'role': rule.role, 'scope': ''}) -%}
    {%- elif taking -%}
      {%- do out.append({'name': rule.name, 'role': rule.role, 'scope': ' (for ' ~ (taking | join(', ')) ~ ')'}) -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}


{#- list_floors (metrics/ranking/list_sql.py): per list and (tie policy, relevance threshold) in use,
    the lowest score any metric ranks down to, the top relevant score, each cutoff's hit
    floor, and the list's relevant and judged rows. -#}
{% macro sm_list_floors(calls, c0, dispatch, native) %}
  {%- set readers = {'ranked': [], 'first_hits': [], 'cutoff_hits': []} -%}
  {%- for call in calls -%}{%- for step in readers if step in call.spec.steps -%}{%- do readers[step].append(call) -%}{%- endfor -%}{%- endfor -%}
  {%- set cutoffs = [] -%}
  {%- for call in readers.cutoff_hits if call.params.k not in cutoffs -%}{%- do cutoffs.append(call.params.k) -%}{%- endfor -%}
  {%- set top_ks = [] -%}
  {%- for call in readers.ranked + readers.cutoff_hits if call.params.k is not none -%}{%- do top_ks.append(call.params.k) -%}{%- endfor -%}
  {%- set portable = not native or top_ks | length > 0 -%}
  {%- set lists = [] -%}
  {%- set floors = {} -%}
  {%- for call in readers.ranked + readers.first_hits + readers.cutoff_hits -%}
    {%- set key = call.params.ties ~ '|' ~ call.params.min_relevance -%}
    {%- if key not in floors -%}{%- do lists.append(call.params) -%}{%- do floors.update({key: {}}) -%}{%- endif -%}
  {%- endfor -%}
  {%- for call in readers.ranked -%}
    {%- set k = call.params.k -%}
    {%- set name = 'sm_floor__' ~ call.spec.reach ~ '__' ~ ('none' if k is none else 'set') ~ '__' ~ ('portable' if portable else 'native') -%}
    {%- set c = {'slices': c0.slices, 'by': c0.by, 'p': {'k': k, 'min_relevance': call.params.min_relevance}} -%}
    {%- do floors[call.params.ties ~ '|' ~ call.params.min_relevance].update({name ~ k: dispatch(name, 'sqlmetrics')(c)}) -%}
  {%- endfor -%}
  {%- set rows = dispatch('sm_ranked_rows', 'sqlmetrics')(c0) if portable and top_ks else 'input WHERE w IS NOT NULL' -%}
  {%- set selects = [] -%}
  {%- for params in lists -%}
    {%- set c = {'slices': c0.slices, 'by': c0.by, 'p': {'min_relevance': params.min_relevance}} -%}
    {%- set exprs = floors[params.ties ~ '|' ~ params.min_relevance].values() | list -%}
    {%- set floor = (exprs[0] if exprs | length == 1 else 'LEAST(' ~ (exprs | join(', ')) ~ ')') if exprs else dispatch('sm_max_score', 'sqlmetrics')(c) -%}
    {%- set columns = ["'" ~ params.ties ~ "' AS ties", dispatch('sm_min_relevance', 'sqlmetrics')(c) ~ ' AS min_relevance', c0.by, 'query', floor ~ ' AS floor'] -%}
    {%- if readers.first_hits -%}{%- do columns.append(dispatch('sm_top_relevant', 'sqlmetrics')(c) ~ ' AS top_relevant') -%}{%- endif -%}
    {%- for k in cutoffs -%}
      {%- set ck = {'slices': c0.slices, 'by': c0.by, 'p': {'k': k, 'min_relevance': params.min_relevance}} -%}
      {%- do columns.append(dispatch('sm_hit_floor__' ~ ('none' if k is none else 'set'), 'sqlmetrics')(ck) ~ ' AS cutoff_' ~ ('all' if k is none else k)) -%}
    {%- endfor -%}
    {%- do columns.append(dispatch('sm_counts', 'sqlmetrics')(c)) -%}
    {%- do selects.append('SELECT ' ~ (columns | join(', ')) ~ ' FROM ' ~ rows ~ ' GROUP BY ' ~ c0.by ~ ', query') -%}
  {%- endfor -%}
  {{- selects | join(' UNION ALL ') -}}
{% endmacro %}


{#- One metric of the call, read, resolved and checked as registry.resolve does, with its
    messages ('ndcg@10', 'fbeta:beta=2'; with a prediction column bound, 'f1' is
    multiclass_f1, with class scores 'auc' is multiclass_auc; a parameter only the
    multi-class metric of a name has selects it), appended to ``out``: its name, its
    catalog entry, its parameters, its result column (MetricCall.column) and its call as
    Python shows it. A value is a number where it is a numeral of the catalog's (ASCII
    digits: registry.parse_value), else text; each is checked against its parameter's
    declaration (sm_param). An unknown metric or parameter, a malformed or repeated
    parameter, a bad value: a compile error naming it. -#}
{% macro sm_call(text, catalog, out, bound) %}
  {%- if text is not string -%}{%- do sqlmetrics.sm_fail("metrics must be metric names (e.g. 'auc'), got " ~ sqlmetrics.sm_repr(text)) -%}{%- endif -%}
  {%- set parts = text.split(':') -%}
  {%- set name = parts[0] | trim -%}
  {%- if not name -%}{%- do sqlmetrics.sm_fail("metric spec " ~ sqlmetrics.sm_repr(text) ~ " has no metric name") -%}{%- endif -%}
  {%- set given = {} -%}
  {%- for part in parts[1:] -%}
    {%- set pair = (part | trim).partition('=') -%}
    {%- set key, value = pair[0] | trim, pair[2] | trim -%}
    {%- if not (key and pair[1] and value) -%}
      {%- do sqlmetrics.sm_fail("metric spec " ~ sqlmetrics.sm_repr(text) ~ ": write parameters as " ~ name ~ ":PARAM=VALUE, got " ~ sqlmetrics.sm_repr(part | trim)) -%}
    {%- endif -%}
    {%- if key in given -%}{%- do sqlmetrics.sm_fail("metric spec " ~ sqlmetrics.sm_repr(text) ~ " sets " ~ sqlmetrics.sm_repr(key) ~ " twice") -%}{%- endif -%}
    {%- if modules.re.fullmatch(catalog.numbers.integer, value) -%}{%- set value = value | int -%}
    {%- elif modules.re.fullmatch(catalog.numbers.float, value) -%}{%- set value = value | float -%}
    {%- endif -%}
    {%- do given.update({key: value}) -%}
  {%- endfor -%}
  {%- set prefixed = 'multiclass_' ~ name -%}
  {%- if prefixed in catalog.metrics -%}
    {%- set unbound = [] -%}
    {%- for role in catalog.metrics[prefixed].needs if role in bound and not bound[role] -%}{%- do unbound.append(role) -%}{%- endfor -%}
    {%- if not unbound -%}{%- set name = prefixed -%}{%- endif -%}
  {%- endif -%}
  {%- if '@' in name and name not in catalog.metrics -%}
    {%- set split = name.split('@', 1) -%}
    {%- set name = split[0] -%}
    {%- if 'k' in given -%}
      {%- do sqlmetrics.sm_fail(name ~ ": k given twice ('@" ~ split[1] ~ "' and k=" ~ sqlmetrics.sm_repr(given.k) ~ ")") -%}
    {%- endif -%}
    {%- if not modules.re.fullmatch(catalog.numbers.integer, split[1] | trim) -%}
      {%- do sqlmetrics.sm_fail(name ~ ": parameter 'k' must be an integer >= 1, got " ~ sqlmetrics.sm_repr(split[1])) -%}
    {%- endif -%}
    {%- do given.update({'k': split[1] | trim | int}) -%}
    {%- set name = name ~ '@k' if (name ~ '@k') in catalog.metrics else name -%}
  {%- elif 'k' in given and (name ~ '@k') in catalog.metrics -%}
    {%- set name = name ~ '@k' -%}
  {%- endif -%}
  {%- set prefixed = 'multiclass_' ~ name -%}
  {%- if name in catalog.metrics and prefixed in catalog.metrics -%}
    {%- set own = catalog.metrics[name].params | map(attribute='name') | list -%}
    {%- set theirs = catalog.metrics[prefixed].params | map(attribute='name') | list -%}
    {%- set others = given.keys() | reject('in', own) | list -%}
    {%- if others and given.keys() | reject('in', theirs) | list | length == 0 -%}{%- set name = prefixed -%}{%- endif -%}
  {%- endif -%}
  {%- if name in catalog.left_out -%}
    {%- do sqlmetrics.sm_fail(name ~ " is not carried by the dbt package: " ~ catalog.left_out[name]) -%}
  {%- endif -%}
  {%- if name not in catalog.metrics -%}
    {%- do sqlmetrics.sm_fail("unknown metric '" ~ name ~ "' (the metrics: " ~ (catalog.metrics.keys() | sort | join(', ')) ~ ")") -%}
  {%- endif -%}
  {%- set spec = catalog.metrics[name] -%}
  {%- set known = spec.params | map(attribute='name') | list -%}
  {%- set unknown = given.keys() | reject('in', known) | list -%}
  {%- if unknown -%}
    {%- set notes = {} -%}
    {%- for key in unknown -%}{%- do notes.update({key: sqlmetrics.sm_other_form(name, key, catalog)}) -%}{%- endfor -%}
    {%- set first = [] -%}  {#- a key unknown to both forms first, as Python names it -#}
    {%- for key in unknown if not notes[key] -%}{%- do first.append(key) -%}{%- endfor -%}
    {%- set key = (first + unknown) | first -%}
    {%- do sqlmetrics.sm_fail(name ~ ": unknown parameter " ~ sqlmetrics.sm_repr(key) ~ " (parameters: " ~ (known | sort | join(', ') or 'none') ~ ")" ~ notes[key]) -%}
  {%- endif -%}
  {%- for p in spec.params if p.required and given.get(p.name) is none -%}
    {%- if loop.first -%}{%- do sqlmetrics.sm_fail(name ~ ": parameter " ~ sqlmetrics.sm_repr(p.name) ~ " is required (e.g. " ~ sqlmetrics.sm_repr(name.replace('@k', '@10')) ~ ")") -%}{%- endif -%}
  {%- endfor -%}
  {%- set values = {} -%}
  {%- set column = [spec.base] -%}
  {%- set shown = [] -%}
  {%- for p in spec.params -%}
    {%- if p.name in given -%}{%- do sqlmetrics.sm_param(name, p, given[p.name], catalog.numbers, values) -%}{%- else -%}{%- do values.update({p.name: p.default}) -%}{%- endif -%}
    {%- set value = values[p.name] -%}
    {%- do shown.append(p.name ~ '=' ~ sqlmetrics.sm_repr(value)) -%}
    {%- if value != p.default or p.required -%}
      {%- if p.name == 'k' -%}{%- do column.append('at_' ~ value) -%}
      {%- elif p.choices -%}{%- do column.append(value) -%}
      {%- elif p.kind == 'float' -%}{%- do column.append(p.name ~ '_' ~ ('%g' | format(value)).replace('.', 'p').replace('-', 'm').replace('+', '')) -%}
      {%- else -%}{%- do column.append(p.name ~ '_' ~ value) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do out.append({'name': name, 'spec': spec, 'params': values, 'column': column | join('_'), 'shown': name ~ '(' ~ (shown | join(', ')) ~ ')'}) -%}
{% endmacro %}


{#- A value ``value`` of parameter ``p`` of metric ``metric`` checked as Param.validate
    checks it (its declaration in the catalog), with its messages, and set in ``out`` as
    its type: a choice one of its choices (a value it refuses, with the reason), a number
    of its kind, at most ``numbers.max_int`` in magnitude for an integer, finite and
    within its bounds. -#}
{% macro sm_param(metric, p, value, numbers, out) %}
  {%- if p.choices -%}
    {%- set choices = (p.choices | string)[1:-1] -%}  {#- 'a', 'b': each as Python shows it -#}
    {%- if value is string and value in p.refused -%}
      {%- do sqlmetrics.sm_fail(metric ~ ": " ~ p.name ~ "=" ~ sqlmetrics.sm_repr(value) ~ " is not supported: " ~ p.refused[value] ~ "; use one of " ~ choices) -%}
    {%- elif value not in p.choices -%}
      {%- do sqlmetrics.sm_fail(metric ~ ": parameter " ~ sqlmetrics.sm_repr(p.name) ~ " must be one of " ~ choices ~ ", got " ~ sqlmetrics.sm_repr(value)) -%}
    {%- endif -%}
    {%- do out.update({p.name: value}) -%}
  {%- else -%}
    {%- set coerced = none -%}
    {%- if p.kind == 'float' and value is number -%}{%- set coerced = value | float -%}
    {%- elif p.kind == 'int' and value is integer -%}{%- set coerced = value -%}
    {%- elif p.kind == 'int' and value is float and value.is_integer() -%}{%- set coerced = value | int -%}
    {%- endif -%}
    {%- if p.kind == 'int' and coerced is not none and (coerced > numbers.max_int or coerced < -numbers.max_int) -%}
      {%- do sqlmetrics.sm_fail(metric ~ ": parameter " ~ sqlmetrics.sm_repr(p.name) ~ " " ~ numbers.max_int_rule ~ ", got " ~ sqlmetrics.sm_repr(value)) -%}
    {%- endif -%}
    {#- x - x is 0 for a finite x, NaN for an infinite or NaN one -#}
    {%- set accepted = coerced is not none and coerced - coerced == 0
        and (p.low is none or (coerced > p.low if p.low_open else coerced >= p.low))
        and (p.high is none or coerced <= p.high) -%}
    {%- if not accepted -%}
      {%- do sqlmetrics.sm_fail(metric ~ ": parameter " ~ sqlmetrics.sm_repr(p.name) ~ " " ~ p.rule ~ ", got " ~ sqlmetrics.sm_repr(value)) -%}
    {%- endif -%}
    {%- do out.update({p.name: coerced}) -%}
  {%- endif -%}
{% endmacro %}


{#- Where the binary and the multi-class metric of one name share it, a note that the
    other takes ``key`` (registry._other_form). -#}
{% macro sm_other_form(name, key, catalog) %}
  {%- set plain = name[11:] if name.startswith('multiclass_') else name -%}
  {%- set other = catalog.metrics.get('multiclass_' ~ plain if plain == name else plain) -%}
  {%- if other and key in other.params | map(attribute='name') | list -%}
    {%- set theirs = other.params | map(attribute='name') | join(', ') -%}
    {{- '; ' ~ sqlmetrics.sm_repr(key) ~ ' is ' ~ ('multiclass_' ~ plain if plain == name else plain) ~ "'s (parameters: " ~ theirs ~ '): a call takes the parameters of one of them' -}}
  {%- endif -%}
{% endmacro %}


{#- ``value`` as Python's repr shows it (a list's text shows its items' reprs). -#}
{% macro sm_repr(value) %}{{- ([value] | string)[1:-1] -}}{% endmacro %}


{#- Fail the model's compilation with ``message``, the library's. -#}
{% macro sm_fail(message) %}
  {%- do exceptions.raise_compiler_error("sqlmetrics: " ~ message) -%}
{% endmacro %}


{#- The wide class scores ({class: score column}), appended to ``out`` as the steps' loops
    read them (the class as a SQL literal and as Python shows it, its column); the kind
    of the classes ('text': strings; 'number': integers or booleans). -#}
{% macro sm_classes(class_scores, out) %}
  {%- if class_scores is not mapping or not class_scores -%}
    {%- do exceptions.raise_compiler_error("sqlmetrics: class_scores must be a mapping {class: score column}, got " ~ class_scores) -%}
  {%- endif -%}
  {%- for cls, column in class_scores.items() -%}
    {%- if cls is string and "'" not in cls and "\\" not in cls -%}
      {%- do out.append({'literal': "'" ~ cls ~ "'", 'text': cls, 'column': sqlmetrics.sm_plain(column, 'class_scores')}) -%}
    {%- elif cls is integer or cls is boolean -%}
      {%- do out.append({'literal': cls ~ '', 'text': cls ~ '', 'column': sqlmetrics.sm_plain(column, 'class_scores')}) -%}
    {%- else -%}
      {%- do exceptions.raise_compiler_error("sqlmetrics: a class of class_scores must be a string or an integer in the dbt package (a string without quotes or backslashes), got " ~ cls) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set strings = class_scores.keys() | select('string') | list | length -%}
  {%- if strings and strings != class_scores | length -%}
    {%- do exceptions.raise_compiler_error("sqlmetrics: the classes of class_scores must be all strings or all numbers, got " ~ (class_scores.keys() | join(', '))) -%}
  {%- endif -%}
  {{- 'text' if strings else 'number' -}}
{% endmacro %}
