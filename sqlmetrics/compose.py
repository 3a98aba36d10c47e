"""Composing many metrics into one SQL statement that scans the source once.

The statement is a chain of CTEs:

``judgments``   (a run with judgments) the judgments under canonical names;
``long_scores``, ``long_rows``, ``source_rows``
                (long class scores) the class-score table under canonical names, its
                classes and scores counted per row id, and the source's rows, which
                ``input`` joins to those counts;
``input``       the only place user column names appear (quoted): slices, label, score,
                weight, query, item under canonical names, ``true_class`` and
                ``predicted_class`` (the label and prediction as they are, for multi-class
                metrics), ``class_score_<i>`` (wide class scores) or ``row_id`` (long),
                and ``w``: the weight of a used row, NULL for a row with a NULL
                in a bound column or class score (a run takes its labels from the judgments);
``base``        the one aggregation over the source: one row per slice, distinct score
                (when a metric reads the score histogram), label and (for multi-class
                metrics) pair of true and predicted class, with its weight, row counts and
                bad-row counters (materialized: everything else reads it);
``checks``      the input rules of ``checks.py``, raising ``error()`` on bad data;
``row_counts``  n_rows and n_excluded per slice, the spine of the result;
ranking         ``ideal_rows`` (every list's judged items), ``list_floors`` (per list, the
                lowest score a metric reads), ``run_checks`` (judgments and run rules);
class scores    ``class_score_rows`` (one row per used row and class: its class score
                and true class, unpivoted in one pass over ``input`` or joined from the
                long table), then after the intermediates ``class_nan`` and
                ``class_checks`` (the rules of ``checks.class_score_rules``);
intermediates   ``score_hist``, ``confusion``, ``residuals``, ``class_confusion``,
                ``class_counts`` (from base), ``class_score_hist`` (per slice, class and
                distinct score, from ``class_score_rows``), ``query_rows``
                (the used rows of the source, for metrics that sort within queries), ``ranked``,
                ``judged``, ``positions`` (ranking): rendered once each, only if a metric
                reads them;
``m_<label>``   one CTE per metric, its template from ``sql/``;

and a final SELECT that left-joins every metric onto ``row_counts`` by slice (NULL-safe)
and sorts by the slice keys.
"""

from __future__ import annotations

from dataclasses import replace

from sqlmetrics import templates
from sqlmetrics.binding import Binding
from sqlmetrics.checks import (
    ERROR_PREFIX,
    TableRule,
    checks_for,
    class_score_rules,
    message_parts,
    run_rules,
)
from sqlmetrics.family import Intermediate
from sqlmetrics.registry import intermediates
from sqlmetrics.sql_names import quote

# DuckDB's top-k aggregate ``max(x, k)`` reserves about 16 bytes per k for every list
# (measured: 3,000 lists at k = 100,000 took 5.2 GB; it refuses k >= 1,000,000), so only a
# small k uses it; a larger k uses the portable top k (a rank over the list's rows), which
# gives the same floor in memory that follows the rows.
DUCKDB_TOP_K_MAX = 100
# ... and only while k slots for every list fit: with no more lists than rows, the source's
# rows × k bounds the slots (2^27 slots: ~2 GB). Past that, or without a row count, the
# rank form, which sorts the rows and spills to disk (200M rows with k = 10: the top-k
# states spilled more than 60 GB under a 4 GB memory limit, the rank form 10 GB).
DUCKDB_TOP_K_SLOTS = 1 << 27

# The engines that spread rows over workers, where a window over a whole slice runs on
# one worker: the running sums over scores in order (score_cum) are taken within
# SCORE_BUCKETS buckets of scores and over the buckets' totals instead
# (sql/intermediates/score_cum_distributed.sql; measured on DuckDB, which sorts a
# slice in parallel anyway: 4x slower on 5M distinct scores, so DuckDB and PostgreSQL
# keep the one window). DataFusion, a test target, partitions too.
DISTRIBUTED_DIALECTS = ("spark", "trino", "bigquery", "snowflake", "datafusion")
SCORE_BUCKETS = 1024


def base_keys(binding: Binding) -> tuple[str, ...]:
    """base's grouping keys besides the slices; rules on them are checked on base's
    groups. The score is a key only when a metric reads the score histogram and the
    scores are not nearly all distinct (``Binding.distinct_scores``: then score_hist is
    the used rows, and grouping by them would be the costliest part of base). The label is a key unless a
    metric takes any number as label (a regression target) or no metric reads it as a
    number: then base is one row per slice. Multi-class metrics add the true and the
    predicted class, so that base holds the confusion matrix; one-vs-rest metrics the
    true class (whose rule, a scored class, is checked on base's groups)."""
    classes = binding.class_keys
    histogram = not binding.distinct_scores and any(
        reads("score_hist", call.spec.intermediates) for call in binding.calls
    )
    if histogram:
        return ("score", "label", *classes)
    real = any(call.spec.label_domain == "real" for call in binding.calls)
    return (*(("label",) if binding.numeric_label and not real else ()), *classes)


def compose(binding: Binding, source_sql: str, second_sql: str | None = None, dialect: str = "duckdb") -> str:
    """The one SQL statement computing every metric of ``binding`` over ``source_sql``
    and the second table read from ``second_sql``: the judgments of a run (ranking
    metrics), or long class scores (one-vs-rest metrics). Still in DuckDB's dialect,
    but for ``dialect``'s engine (``dialects.transpile`` then writes it in that
    dialect): without DuckDB's own aggregates for another engine, and with no window
    over a whole slice for one of ``DISTRIBUTED_DIALECTS``."""
    by = ", ".join(binding.slices)
    ctes = shared_steps(binding, source_sql, second_sql, dialect)
    for call in binding.calls:
        values = {"by": by, **{name: templates.literal(value) for name, value in call.params}}
        ctes[f"m_{call.label}"] = templates.render(call.spec.template, values, binding.slices)
    return statement(ctes, _final_select(binding))


def shared_steps(
    binding: Binding, source_sql: str, second_sql: str | None = None, dialect: str = "duckdb"
) -> dict[str, str]:
    """The CTEs before the metrics' own, by name: input, base, checks, row_counts, the
    ranking and class-score steps and the intermediates the metrics read (curves end
    with their own). ``second_sql`` reads the judgments or the long class scores."""
    by = ", ".join(binding.slices)
    portable = dialect != "duckdb"
    ctes = {}
    if binding.judgments:
        ctes["judgments"] = _judgments_sql(binding, second_sql)
        ctes["input"] = _run_input_sql(binding, source_sql)
    elif binding.long_scores is not None:
        ctes |= _long_input_steps(binding, source_sql, second_sql)
    else:
        ctes["input"] = _input_sql(binding, source_sql)
    ctes |= {
        "base": _base_sql(binding),
        "checks": _checks_sql(binding),
        "row_counts": _row_counts_sql(binding, by),
    }
    if binding.ranking:
        ctes["ideal_rows"] = _ideal_rows_sql(binding, by)
    if any(reads("ranked", call.spec.intermediates) for call in binding.calls):
        ctes["list_floors"] = _list_floors_sql(binding, by, portable)
    if binding.judgments:
        ctes["run_checks"] = _run_checks_sql(binding)
    if binding.class_scores is not None:
        ctes["class_score_rows"] = _class_score_rows_sql(binding, by)
    for name in _intermediates_needed(binding):
        ctes[name] = _intermediate_sql(binding, name, dialect)
    if binding.class_scores is not None:
        ctes["class_nan"] = (
            "SELECT class, CAST(SUM(n) AS BIGINT) AS n\nFROM class_score_hist\nWHERE isnan(score)\nGROUP BY class"
        )
        ctes["class_checks"] = _class_checks_sql(binding)
    return ctes


def check_steps(binding: Binding) -> list[str]:
    """The CTEs whose ``failure`` must be NULL for the result to be returned."""
    return [
        "checks",
        *(["run_checks"] if binding.judgments else []),
        *(["class_checks"] if binding.class_scores else []),
    ]


# What each step that Python writes (rather than a template) is, shown above its SQL.
STEP_NOTES = {
    "judgments": "judgments: the relevance judgments under canonical names (query, item, label)",
    "long_scores": "long_scores: the long class scores under canonical names (row_id, class, score)",
    "long_rows": "long_rows: per row id, its class rows and its scored class rows",
    "source_rows": "source_rows: the source under canonical names, before the long class scores are joined",
    "input": "input: the source under canonical names (the only step that names your columns); w is the weight\n"
    "-- of a used row, NULL for a row left out for a NULL in a bound column",
    "base": "base: the one aggregation over the source, per slice (and score, label or class where a metric\n"
    "-- reads them): used rows n, all rows n_all, weight w; everything below reads it",
    "checks": "checks: the input rules; error() refuses the query with the first rule the data breaks",
    "row_counts": "row_counts: n_rows (used) and n_excluded per slice, the spine of the result",
    "ideal_rows": "ideal_rows: every list's judged items, the ideal ranking's rows",
    "list_floors": "list_floors: per list, the lowest score any ranking metric reads (rows below are never ranked)",
    "run_checks": "run_checks: the rules of a run and its judgments (no item ranked or judged twice)",
    "class_score_rows": "class_score_rows: one row per used row and class, with the class's score",
    "class_nan": "class_nan: per class, the rows whose class score is NaN",
    "class_checks": "class_checks: the class-score rules; error() refuses the query with the first one broken",
}


def statement(ctes: dict[str, str], final_select: str) -> str:
    """``WITH <ctes> <final_select>``; base is materialized (every later step reads it).
    Each step starts with a comment saying what it is (a template's own header, or
    ``STEP_NOTES``), so the statement reads top to bottom in any dialect."""
    with_clause = ",\n".join(
        f"{name} AS {'MATERIALIZED ' if name == 'base' else ''}(\n{_indent(_noted(name, sql))}\n)"
        for name, sql in ctes.items()
    )
    return f"WITH\n{with_clause}\n-- the result: one row per slice, every metric joined by slice\n{final_select}"


def _noted(name: str, sql: str) -> str:
    return sql if sql.startswith("--") or name not in STEP_NOTES else f"-- {STEP_NOTES[name]}\n{sql}"


def _input_sql(binding: Binding, source_sql: str) -> str:
    """The source under canonical names. ``w`` is the weight of a used row and NULL for a
    row excluded for a NULL in a bound column, so sums over ``w`` skip excluded rows."""
    columns = ", ".join(f"{sql} AS {name}" for name, sql in _input_columns(binding).items())
    return f"SELECT {columns}\nFROM {source_sql}"


def _input_columns(binding: Binding) -> dict[str, str]:
    """``input``'s columns: {canonical name: the SQL computing it from the source}."""
    roles = binding.roles
    columns = {f"slice_{i}": quote(col) for i, col in enumerate(binding.by, 1)} or {"slice_0": "0"}
    if binding.numeric_label and "label" in roles:
        columns["label"] = f"CAST({quote(roles['label'])} AS DOUBLE)"
    if "score" in roles:
        columns["score"] = f"CAST({quote(roles['score'])} AS DOUBLE)"
    for role, key in zip(("label", "prediction"), binding.class_keys):
        columns[key] = quote(roles[role])  # never cast: classes may be strings
    wide = [column for _, column in binding.wide_scores]
    columns |= {f"class_score_{i}": f"CAST({quote(column)} AS DOUBLE)" for i, column in enumerate(wide, 1)}
    if "row_id" in roles:
        columns["row_id"] = quote(roles["row_id"])
    weight = f"CAST({quote(roles['weight'])} AS DOUBLE)" if "weight" in roles else "CAST(1 AS DOUBLE)"
    if "weight" in roles:
        columns["weight"] = weight  # read only by the weight check
    excluded = " OR ".join(f"{quote(column)} IS NULL" for column in [*roles.values(), *wide])
    columns["w"] = f"CASE WHEN {excluded} THEN NULL ELSE {weight} END"
    if binding.needs_query:
        columns["query"] = quote(roles["query"])
    if binding.ranking:
        columns["item"] = quote(roles["item"]) if "item" in roles else "NULL"
    return columns


def _long_input_steps(binding: Binding, source_sql: str, long_sql: str | None) -> dict[str, str]:
    """The long class scores under canonical names (row_id, class, score), each row id's
    count of class rows and of scores, and ``input``: the source's rows with the count
    of classes scored for their row id, a row with a NULL class score being excluded."""
    long = binding.long_scores
    kept = [f"r.{name}" for name in _input_columns(binding) if name != "w"]
    return {
        "long_scores": (
            f"SELECT {quote(long.row_id)} AS row_id, {quote(long.class_)} AS class, "
            f"CAST({quote(long.score)} AS DOUBLE) AS score\nFROM {long_sql}"
        ),
        "long_rows": (
            "SELECT row_id, COUNT(*) AS n_classes, COUNT(score) AS n_scored\nFROM long_scores\nGROUP BY row_id"
        ),
        "source_rows": _input_sql(binding, source_sql),
        "input": (
            f"SELECT {', '.join(kept)}, CASE WHEN l.n_scored < l.n_classes THEN NULL ELSE r.w END AS w, l.n_classes\n"
            "FROM source_rows AS r\nLEFT JOIN long_rows AS l ON r.row_id = l.row_id"
        ),
    }


def _class_score_rows_sql(binding: Binding, by: str) -> str:
    """One row per used row and class: the class, its score, the row's true class and
    weight. Wide scores are unpivoted in one pass over ``input`` (a CROSS JOIN with the
    classes, a CASE picking each class's column); long scores are joined by row id."""
    if binding.long_scores is not None:
        slices = ", ".join(f"i.{s}" for s in binding.slices)
        return (
            f"SELECT {slices}, s.class, s.score, i.true_class, i.w\nFROM input AS i\n"
            "JOIN long_scores AS s ON i.row_id = s.row_id\nWHERE i.w IS NOT NULL"
        )
    classes = _classes_values(binding)
    picks = " ".join(f"WHEN {i} THEN class_score_{i}" for i in range(1, len(binding.wide_scores) + 1))
    return (
        f"SELECT {by}, c.class, CASE c.i {picks} END AS score, true_class, w\n"
        f"FROM input\nCROSS JOIN {classes}\nWHERE w IS NOT NULL"
    )


def _classes_values(binding: Binding) -> str:
    """The wide classes as a table c(i, class), i their position in the mapping."""
    rows = ", ".join(f"({i}, {templates.literal(cls)})" for i, (cls, _) in enumerate(binding.wide_scores, 1))
    return f"(VALUES {rows}) AS c(i, class)"


def _class_checks_sql(binding: Binding) -> str:
    """The rules of ``checks.class_score_rules``, raising ``error()`` on the first broken."""
    return _rules_sql(class_score_rules(binding))


def _rules_sql(rules: list[TableRule]) -> str:
    """One row whose ``failure`` raises the first broken rule, each counted by its SQL
    form (count, example, FROM clause)."""
    selects, cases = [], []
    for rule in rules:
        count, example, source = rule.sql
        selects.append(f"(SELECT {count} AS n, {example} AS e FROM {source}) AS {rule.name}")
        message = (
            f"{templates.literal(ERROR_PREFIX + rule.before)} || CAST({rule.name}.n AS VARCHAR)"
            f" || {templates.literal(rule.between)} || CAST({rule.name}.e AS VARCHAR)"
        )
        cases.append(f"    WHEN {rule.name}.n > 0 THEN error({message})")
    return "SELECT CASE\n" + "\n".join(cases) + "\n  END AS failure\nFROM " + "\nCROSS JOIN ".join(selects)


def _judgments_sql(binding: Binding, judgments_sql: str | None) -> str:
    """The judgments under canonical names: query, item, label (the relevance)."""
    roles = binding.judgment_roles
    return (
        f"SELECT {quote(roles['query'])} AS query, {quote(roles['item'])} AS item, "
        f"CAST({quote(roles['label'])} AS DOUBLE) AS label\nFROM {judgments_sql}"
    )


def _run_input_sql(binding: Binding, source_sql: str) -> str:
    """A run as ``input``: each row's label is its judged relevance, 0 when unjudged."""
    run = _input_sql(binding, source_sql)
    columns = [*binding.slices, "run.query", "run.item", "run.score", "COALESCE(j.label, 0) AS label", "w"]
    return (
        f"SELECT {', '.join(columns)}\nFROM (\n{_indent(run)}\n) AS run\n"
        "LEFT JOIN judgments AS j ON run.query = j.query AND run.item = j.item"
    )


def _ideal_rows_sql(binding: Binding, by: str) -> str:
    """The judged items of every list: its own used rows, or with judgments every judged
    item of the list's query."""
    if not binding.judgments:
        return f"SELECT {by}, query, label\nFROM input\nWHERE w IS NOT NULL"
    lists = f"SELECT DISTINCT {by}, query FROM input WHERE w IS NOT NULL"
    qualified = ", ".join(f"lists.{s}" for s in binding.slices)
    return (
        f"SELECT {qualified}, j.query, j.label\nFROM ({lists}) AS lists\nJOIN judgments AS j ON lists.query = j.query"
    )


def _list_floors_sql(binding: Binding, by: str, portable: bool) -> str:
    """Per list and (tie policy, relevance threshold) in use: the lowest score any metric
    of the call reads down to (the ranked step's declared ``floor``; ``portable``: without
    DuckDB's top-k aggregate, which is also avoided for a k above ``DUCKDB_TOP_K_MAX``)."""
    floor = intermediates()["ranked"].floor
    ranking = [call for call in binding.calls if reads("ranked", call.spec.intermediates)]
    cutoffs = [call.kwargs["k"] for call in ranking if call.kwargs.get("k") is not None]
    portable = portable or (bool(cutoffs) and not _top_k_fits(binding, max(cutoffs)))
    floors: dict[tuple[str, float], list[str]] = {}
    for call in ranking:
        kwargs = call.kwargs
        combination = (kwargs["ties"], kwargs["min_relevance"])
        floors.setdefault(combination, []).append(
            floor(call.spec.reach, kwargs.get("k"), kwargs["min_relevance"], portable)
        )
    rows = "input\nWHERE w IS NOT NULL"
    if portable and cutoffs:
        rows = (  # the floor's top k reads score_rank
            f"(\n  SELECT *, RANK() OVER (PARTITION BY {by}, query ORDER BY score DESC) AS score_rank\n"
            "  FROM input\n  WHERE w IS NOT NULL\n) AS ranked_input"
        )
    selects = [
        f"SELECT {templates.literal(ties)} AS ties, {templates.literal(min_relevance)} AS min_relevance, {by}, query, "
        f"{_least(sorted(set(exprs)))} AS floor\nFROM {rows}\nGROUP BY {by}, query"
        for (ties, min_relevance), exprs in sorted(floors.items())
    ]
    return "\nUNION ALL\n".join(selects)


def _top_k_fits(binding: Binding, k: int) -> bool:
    """Whether DuckDB's top-k aggregate may keep ``k`` scores for every list."""
    rows = binding.source_rows
    return k <= DUCKDB_TOP_K_MAX and rows is not None and rows * k <= DUCKDB_TOP_K_SLOTS


def _least(exprs: list[str]) -> str:
    """The smallest of ``exprs`` (LEAST takes two or more arguments in Spark)."""
    return exprs[0] if len(exprs) == 1 else f"LEAST({', '.join(exprs)})"


def _run_checks_sql(binding: Binding) -> str:
    """The rules of ``checks.run_rules``: no NULL or negative relevance, each (query,
    item) judged at most once and ranked at most once per list."""
    return _rules_sql(run_rules(binding))


def _base_sql(binding: Binding) -> str:
    """One row per slice, distinct score and label: the score histogram plus what the
    checks and the row counts need. Labels are keys rather than summed into positive
    and negative weights: fewer aggregate states per group, which is what costs when
    nearly every score is distinct, and bad labels show up as groups."""
    aggregates = ["COUNT(*) AS n_all", "COUNT(w) AS n", "SUM(w) AS w"]
    for name in _intermediates_needed(binding):
        aggregates += _step(binding, name).base_aggregates
    base_roles = base_keys(binding)
    for check, _ in checks_for(binding.calls, binding.weight is not None):
        if check.role not in base_roles:
            aggregates += [
                f"SUM(CASE WHEN {check.sql} THEN 1 ELSE 0 END) AS n_bad_{check.name}",
                f"MIN(CASE WHEN {check.sql} THEN {check.role} END) AS bad_{check.name}",
            ]
    keys = [*(binding.slices if binding.by else ()), *base_roles]  # a constant slice_0 is no key
    columns = [*(() if binding.by else ("0 AS slice_0",)), *keys, *aggregates]
    group = f"\nGROUP BY {', '.join(keys)}" if keys else ""  # no keys: one row, even for no rows
    return f"SELECT {', '.join(columns)}\nFROM input{group}"


def _checks_sql(binding: Binding) -> str:
    """One row whose ``failure`` raises an error naming the first rule the data breaks."""
    cases = []
    base_roles = base_keys(binding)
    for check, metrics in checks_for(binding.calls, binding.weight is not None):
        before, between = message_parts(check, binding.role_columns[check.role], metrics)
        if check.role in base_roles:
            count = f"SUM(CASE WHEN {check.sql} THEN n_all ELSE 0 END)"
            example = f"MIN(CASE WHEN {check.sql} THEN {check.role} END)"
        else:
            count, example = f"SUM(n_bad_{check.name})", f"MIN(bad_{check.name})"
        message = (
            f"{templates.literal(before)} || CAST({count} AS VARCHAR) || {templates.literal(between)}"
            f" || CAST({example} AS VARCHAR)"
        )
        cases.append(f"    WHEN {count} > 0 THEN error({message})")
    if not cases:  # multi-class metrics without weights: no rule to check
        return "SELECT NULL AS failure"
    return "SELECT CASE\n" + "\n".join(cases) + "\n  END AS failure\nFROM base"


def _row_counts_sql(binding: Binding, by: str) -> str:
    counts = (
        "CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n_rows, CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS BIGINT) AS n_excluded"
    )
    if not binding.by:  # one row even for an empty source
        return f"SELECT 0 AS slice_0, {counts}\nFROM base"
    return f"SELECT {by}, {counts}\nFROM base\nGROUP BY {by}"


def _intermediates_needed(binding: Binding) -> list[str]:
    """The intermediates the metrics read, each after the ones it reads, in a stable order
    (and the class score histogram whenever class scores are bound: their checks read it)."""
    ordered: list[str] = []

    def add(name: str) -> None:
        for dependency in intermediates()[name].after:
            add(dependency)
        if name not in ordered:
            ordered.append(name)

    for call in binding.calls:
        for name in call.spec.intermediates:
            add(name)
    if binding.class_scores is not None:  # bound class scores are checked, whatever reads them
        add("class_score_hist")
    return ordered


def reads(name: str, steps: tuple[str, ...]) -> bool:
    """Whether a metric reading ``steps`` reads intermediate ``name``, directly or not."""
    declared = intermediates()
    return any(r == name or reads(name, declared[r].after) for r in steps if r in declared)


def _step(binding: Binding, name: str) -> Intermediate:
    """The step that computes intermediate ``name`` for the call: its ``distinct`` form
    when the scores are nearly all distinct (score_hist from the rows)."""
    declared = intermediates()[name]
    if binding.distinct_scores and declared.distinct:
        return replace(declared, template=declared.distinct)
    return declared


def _intermediate_sql(binding: Binding, name: str, dialect: str) -> str:
    """Intermediate ``name`` rendered for the call and ``dialect``'s engine: once, or once
    per combination of its ``each`` parameters in use, stacked."""
    step = _step(binding, name)
    slices = (*binding.slices, *step.keys)
    template = step.distributed if step.distributed and dialect in DISTRIBUTED_DIALECTS else step.template
    values = {
        "by": ", ".join(slices),
        "weight": _row_weight(binding, dialect != "duckdb"),
        "buckets": str(SCORE_BUCKETS),
        **dict(step.values),
        **_collected(binding, name),
    }
    if not step.each:
        return templates.render(template, values, slices)
    renders = []
    for combination in _combinations(binding, name, step.each):
        given = dict(zip(step.each, combination))
        rendered = {param: templates.literal(value) for param, value in given.items()}
        extra = step.derived(**given) if step.derived else {}
        renders.append(templates.render(template, values | rendered | extra, slices, not renders))
    return "\nUNION ALL\n".join(renders)


def _row_weight(binding: Binding, portable: bool) -> str:
    """``{{ weight }}``, a used row's weight in the steps that keep rows (score_rows,
    query_rows): ``w``, or for an unweighted call on DuckDB the INTEGER 1, as DuckDB's
    window sums (the running sums of auc, average_precision and gauc over rows) add
    integers about twice as fast as DOUBLE; DuckDB's ``/`` divides integers exactly, and
    the steps that output a sum cast it to DOUBLE. Other dialects keep ``w``: their
    ``/`` truncates integers."""
    return "w" if binding.weight is not None or portable else "1"


def _combinations(binding: Binding, name: str, params: tuple[str, ...]) -> list[tuple]:
    """Every distinct combination of ``params`` among the metrics reading ``name``, sorted."""
    return sorted(
        {
            tuple(call.kwargs[param] for param in params)
            for call in binding.calls
            if reads(name, call.spec.intermediates)
        }
    )


def _collected(binding: Binding, name: str) -> dict[str, str]:
    """``{{ <table> }}``: every combination of the collected parameters in use, as rows."""
    step = intermediates()[name]
    if not step.collects:
        return {}
    combinations = _combinations(binding, name, step.collects)
    rows = ", ".join(f"({', '.join(templates.literal(v) for v in values)})" for values in combinations)
    return {step.table: f"(VALUES {rows}) AS t({', '.join(step.collects)})"}


def _final_select(binding: Binding) -> str:
    slices = binding.slices
    columns = [f"row_counts.{s} AS {quote(user)}" for s, user in zip(slices, binding.by)]
    columns += ["row_counts.n_rows", "row_counts.n_excluded"]
    joins = []
    for call in binding.calls:
        cte, name = f"m_{call.label}", call.base_name
        columns.append(f"{cte}.{name} AS {call.label}")
        columns += [f"COALESCE({cte}.{name}_{out}, 0) AS {call.label}_{out}" for out in call.spec.outputs]
        joins.append(f"LEFT JOIN {cte} ON {templates.same_slice(slices, 'row_counts', cte)}")
    order = f"\nORDER BY {', '.join(f'row_counts.{s}' for s in slices)}" if binding.by else ""
    checks = check_steps(binding)
    return (
        f"SELECT {', '.join(columns)}\nFROM row_counts\n"
        + "\n".join(joins)
        + "".join(f"\nCROSS JOIN {name}" for name in checks)
        + "\nWHERE "
        + " AND ".join(f"{name}.failure IS NULL" for name in checks)
        + order
    )


def _indent(sql: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line if line else line for line in sql.splitlines())


# --- tables of classes: sm.confusion_matrix and sm.per_class ---------------------------


def _class_steps(binding: Binding, source_sql: str) -> dict[str, str]:
    """input, base and its checks, class_confusion and class_counts: the steps every
    table of classes reads (binding has a prediction and no metric that reads more)."""
    by = ", ".join(binding.slices)
    ctes = {"input": _input_sql(binding, source_sql), "base": _base_sql(binding), "checks": _checks_sql(binding)}
    for name in ("class_confusion", "class_counts"):
        ctes[name] = templates.render(intermediates()[name].template, {"by": by}, binding.slices)
    return ctes


def _user_slices(binding: Binding, relation: str) -> list[str]:
    return [f"{relation}.{s} AS {quote(user)}" for s, user in zip(binding.slices, binding.by)]


def compose_confusion_matrix(binding: Binding, source_sql: str) -> str:
    """``sm.confusion_matrix``: per slice, one row per pair of true and predicted class
    that occurs in the used rows, with its rows ``n`` and (weighted) its ``weight``."""
    columns = [*_user_slices(binding, "c"), "c.true_class AS label", "c.predicted_class AS prediction", "c.n"]
    if binding.weight is not None:
        columns.append("c.w AS weight")
    order = [*(f"c.{s}" for s in binding.slices if binding.by), "c.true_class", "c.predicted_class"]
    select = (
        f"SELECT {', '.join(columns)}\nFROM class_confusion AS c\nCROSS JOIN checks\n"
        f"WHERE checks.failure IS NULL\nORDER BY {', '.join(order)}"
    )
    return statement(_class_steps(binding, source_sql), select)


def compose_per_class(binding: Binding, source_sql: str) -> str:
    """``sm.per_class``: per slice and class, the support and each metric's per-class
    value (the column of ``sql/multiclass/per_class.sql`` its module names), one
    ``per_class_<i>`` step per F-score β in use, joined by slice and class."""
    ctes = _class_steps(binding, source_sql)
    betas = sorted({call.kwargs.get("beta", 1.0) for call in binding.calls})
    for i, beta in enumerate(betas):
        values = {"by": ", ".join(binding.slices), "beta": templates.literal(beta)}
        ctes[f"per_class_{i}"] = templates.render("multiclass/per_class.sql", values, binding.slices)
    columns = [*_user_slices(binding, "p0"), "p0.class AS class", "p0.support"]
    columns += [
        f"p{betas.index(call.kwargs.get('beta', 1.0))}.{call.spec.per_class} AS {call.label}" for call in binding.calls
    ]
    joins = [
        f"JOIN per_class_{i} AS p{i} ON {templates.same_slice(binding.slices, 'p0', f'p{i}')} AND p0.class = p{i}.class"
        for i in range(1, len(betas))
    ]
    order = [*(f"p0.{s}" for s in binding.slices if binding.by), "p0.class"]
    select = (
        f"SELECT {', '.join(columns)}\nFROM per_class_0 AS p0\n"
        + "".join(join + "\n" for join in joins)
        + f"CROSS JOIN checks\nWHERE checks.failure IS NULL\nORDER BY {', '.join(order)}"
    )
    return statement(ctes, select)
