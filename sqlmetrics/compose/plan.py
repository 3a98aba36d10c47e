"""The input plan: the source under canonical names (``input``, and before it the
judgments or the long class scores), its one aggregation ``base`` and the row counts.

``input`` (or ``source_rows`` and ``sampled_rows``, which it then reads) reads the
source's columns (quoted) under canonical names: slices, label, score, weight, query,
item, ``true_class`` and ``predicted_class`` (the label and prediction as they are, for
multi-class metrics), ``class_score_<i>`` (wide class scores) or ``row_id`` (long), each
role a family declares beyond the core's as a number under its name, and
``w``: the weight of a used row, NULL for a row with a NULL in a bound column or class
score (a run takes its labels from the judgments). With ``judgments`` and
``long_scores``, these are the only steps that read a user's table by its column names
(the final SELECT gives the slices their user names back, ``select.py``).
``base`` is one row per slice and ``base_keys``, with row counts, weight,
the bad-row counters of the input rules and the sums the intermediates declare.
"""

from __future__ import annotations

from sqlmetrics.binding import Binding, bootstrap
from sqlmetrics.compose.intermediates import each_sums, needed, reads, step
from sqlmetrics.compose.rounding import spread_aggregates
from sqlmetrics.compose.statement import indent
from sqlmetrics.rules.columns import Check, checks_for
from sqlmetrics.sqltext import templates


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


def input_steps(binding: Binding, source_sql: str, second_sql: str | None) -> dict[str, str]:
    """The steps up to ``input``: with judgments, the judgments and the run joined to
    them; with long class scores, their steps; else ``input`` alone."""
    if binding.judgments:
        run = _run_input_sql(binding, source_sql)
        paired = _paired_input_steps(binding, run) if binding.paired_scores else {"input": run}
        return {"judgments": _judgments_sql(binding, second_sql), **paired}
    if binding.long_scores is not None:
        return _long_input_steps(binding, source_sql, second_sql)
    if binding.paired_scores and binding.bootstrap:  # the rows resampled, then paired
        resampled = _bootstrap_input_steps(binding, source_sql)
        return {"sampled_rows": resampled["sampled_rows"], **_paired_input_steps(binding, resampled["input"])}
    if binding.paired_scores:
        return _paired_input_steps(binding, input_sql(binding, source_sql))
    if binding.bootstrap:
        return _bootstrap_input_steps(binding, source_sql)
    return {"input": input_sql(binding, source_sql)}


def input_sql(binding: Binding, source_sql: str) -> str:
    """The source under canonical names. ``w`` is the weight of a used row and NULL for a
    row excluded for a NULL in a bound column, so sums over ``w`` skip excluded rows."""
    columns = ", ".join(f"{sql} AS {name}" for name, sql in _input_columns(binding).items())
    return f"SELECT {columns}\nFROM {source_sql}"


def _input_columns(binding: Binding) -> dict[str, str]:
    """``input``'s columns: {canonical name: the SQL computing it from the source}."""
    roles = binding.roles
    columns = {f"slice_{i}": templates.quote(col) for i, col in enumerate(binding.source_by, 1)} or {"slice_0": "0"}
    if binding.numeric_label and "label" in roles:
        columns["label"] = f"CAST({templates.quote(roles['label'])} AS DOUBLE)"
    paired = dict(enumerate(binding.paired_scores or (), 1))
    if "score" in roles and not paired:
        columns["score"] = f"CAST({templates.quote(roles['score'])} AS DOUBLE)"
    if paired and binding.paired_role == "score":
        columns |= {f"score_{i}": f"CAST({templates.quote(c)} AS DOUBLE)" for i, c in paired.items()}
    for role, key in zip(("label", "prediction"), binding.class_keys):
        if role == "prediction" and paired:  # two predicted classes, paired as two scores are
            columns |= {f"prediction_{i}": templates.quote(column) for i, column in paired.items()}
        else:
            columns[key] = templates.quote(roles[role])  # never cast: classes may be strings
    wide = [column for _, column in binding.wide_scores]
    columns |= {f"class_score_{i}": f"CAST({templates.quote(column)} AS DOUBLE)" for i, column in enumerate(wide, 1)}
    if "row_id" in roles:
        columns["row_id"] = templates.quote(roles["row_id"])
    weight = f"CAST({templates.quote(roles['weight'])} AS DOUBLE)" if "weight" in roles else "CAST(1 AS DOUBLE)"
    if "weight" in roles:
        columns["weight"] = weight  # read only by the weight check
    # a role a family declares, read as a number under its name (``spec.Role.generic``)
    columns |= {role: f"CAST({templates.quote(roles[role])} AS DOUBLE)" for role in binding.generic_roles}
    second = (binding.paired_scores or ())[1:]
    excluded = " OR ".join(f"{templates.quote(column)} IS NULL" for column in [*roles.values(), *second, *wide])
    columns["w"] = f"CASE WHEN {excluded} THEN NULL ELSE {weight} END"
    if binding.needs_query:
        columns["query"] = templates.quote(roles["query"])
    if binding.ranking:
        columns["item"] = templates.quote(roles["item"]) if "item" in roles else "NULL"
    if binding.cluster and not binding.bootstrap:
        columns["unit_id"] = templates.quote(binding.cluster)
    if binding.bootstrap:
        unit = binding.bootstrap.unit
        # w: NULL for an excluded row; a constant (slice_0, a missing item's NULL) orders nothing
        row = [sql for name, sql in columns.items() if name != "slice_0" and sql != "NULL"]
        columns["unit_id"] = bootstrap.unit_id_sql(None if unit is None else templates.quote(unit), row)
    return columns


def _long_input_steps(binding: Binding, source_sql: str, long_sql: str | None) -> dict[str, str]:
    """The long class scores under canonical names (row_id, class, score), each row id's
    count of class rows and of scores, and ``input``: the source's rows with the count
    of classes scored for their row id, a row with a NULL class score being excluded."""
    long = binding.long_scores
    kept = [f"r.{name}" for name in _input_columns(binding) if name != "w"]
    return {
        "long_scores": (
            f"SELECT {templates.quote(long.row_id)} AS row_id, {templates.quote(long.class_)} AS class, "
            f"CAST({templates.quote(long.score)} AS DOUBLE) AS score\nFROM {long_sql}"
        ),
        "long_rows": (
            "SELECT row_id, COUNT(*) AS n_classes, COUNT(score) AS n_scored\nFROM long_scores\nGROUP BY row_id"
        ),
        "source_rows": input_sql(binding, source_sql),
        "input": (
            f"SELECT {', '.join(kept)}, CASE WHEN l.n_scored < l.n_classes THEN NULL ELSE r.w END AS w, l.n_classes\n"
            "FROM source_rows AS r\nLEFT JOIN long_rows AS l ON r.row_id = l.row_id"
        ),
    }


def _paired_input_steps(binding: Binding, rows_sql: str) -> dict[str, str]:
    """Two scores of the same rows (``Binding.paired_scores``): ``paired_rows``, the rows
    ``rows_sql`` selects, with both scores (``score_1``, ``score_2``; a row with either
    NULL is excluded), and ``input``, each row twice, with the slice ``PAIRED_SLICE`` = 1
    and its first score, and = 2 and its second; two predicted classes likewise
    (``prediction_1``, ``prediction_2``, each row's ``predicted_class``). With a
    bootstrap, the rows are the resampled ones (with their replicate): both scores of a
    row get its count."""
    pair, replicate = binding.pair_slice, [binding.replicate_slice] if binding.bootstrap else []
    role = binding.paired_role
    paired = (f"{role}_1", f"{role}_2")
    # unit_id: the units the analytic intervals are clustered by (a bootstrap's resampled rows carry them)
    dropped = ("slice_0", *paired, *([] if binding.cluster else ["unit_id"]))
    judged = ["label"] if binding.judgments else []  # a run's label is its judgment
    kept = [name for name in _input_columns(binding) if name not in dropped] + judged + replicate
    each = binding.paired_key
    return {
        "paired_rows": rows_sql,
        "input": (
            f"SELECT {', '.join(kept)}, m.model AS {pair}, "
            f"CASE WHEN m.model = 1 THEN {paired[0]} ELSE {paired[1]} END AS {each}\n"
            "FROM paired_rows\nCROSS JOIN (VALUES (1), (2)) AS m(model)"
        ),
    }


def _bootstrap_input_steps(binding: Binding, source_sql: str) -> dict[str, str]:
    """The bootstrap (``sqlmetrics.binding.bootstrap``): ``sampled_rows``, the source's rows with
    their unit's number, and ``input``, each row once per replicate (the slice
    REPLICATE_SLICE: 0 the data as it is, 1..R the resamples) with its weight times the
    replicate's Poisson(1) count of its unit."""
    boot, replicate = binding.bootstrap, binding.replicate_slice
    kept = [name for name in _input_columns(binding) if name not in ("slice_0", "w", "unit_id")]
    # the units' numbers, for the analytic intervals clustered by the same unit in the statement
    kept += ["unit_id"] if binding.cluster else []
    first, second, third = bootstrap.hash_steps_sql(boot.seed)
    hashed = (
        f"SELECT {', '.join(kept)}, w, replicate, {third} AS h3\nFROM (\n"
        f"    SELECT {', '.join(kept)}, w, replicate, {second} AS h2\n    FROM (\n"
        f"        SELECT {', '.join(kept)}, w, replicate, {first} AS h1\n"
        f"        FROM sampled_rows\n        CROSS JOIN {bootstrap.replicates_sql(boot.resamples)}\n"
        "    ) AS first_hash\n) AS second_hash"
    )
    return {
        "sampled_rows": input_sql(binding, source_sql),
        "input": (
            f"-- every row once per replicate: 0 as it is, 1..{boot.resamples} with its weight times a Poisson(1)\n"
            f"-- count hashed from its {'unit' if boot.unit else 'row'}, the replicate and the seed "
            "(sqlmetrics/binding/bootstrap.py)\n"
            f"SELECT {', '.join(kept)}, replicate AS {replicate}, w * {bootstrap.count_sql('h3')} AS w\n"
            f"FROM (\n{indent(hashed)}\n) AS hashed"
        ),
    }


def _judgments_sql(binding: Binding, judgments_sql: str | None) -> str:
    """The judgments under canonical names: query, item, label (the relevance)."""
    roles = binding.judgment_roles
    return (
        f"SELECT {templates.quote(roles['query'])} AS query, {templates.quote(roles['item'])} AS item, "
        f"CAST({templates.quote(roles['label'])} AS DOUBLE) AS label\nFROM {judgments_sql}"
    )


def _run_input_sql(binding: Binding, source_sql: str) -> str:
    """A run as ``input``: each row's label is its judged relevance, 0 when unjudged (with
    two paired scores, the rows that ``_paired_input_steps`` then doubles)."""
    run = input_sql(binding, source_sql)
    slices = [name for name in _input_columns(binding) if name.startswith("slice_")]
    scores = [f"run.score_{i}" for i in (1, 2)] if binding.paired_scores else ["run.score"]
    units = ["run.unit_id"] if "unit_id" in _input_columns(binding) else []  # the intervals' clusters
    columns = [*slices, "run.query", "run.item", *scores, "COALESCE(j.label, 0) AS label", "w", *units]
    return (
        f"SELECT {', '.join(columns)}\nFROM (\n{indent(run)}\n) AS run\n"
        "LEFT JOIN judgments AS j ON run.query = j.query AND run.item = j.item"
    )


def base_sql(binding: Binding) -> str:
    """One row per slice, distinct score and label: the score histogram plus what the
    checks and the row counts need. Labels are keys rather than summed into positive
    and negative weights: fewer aggregate states per group, which is what costs when
    nearly every score is distinct, and bad labels show up as groups."""
    aggregates = base_sums(binding)
    base_roles = base_keys(binding)
    for check, _ in checks_for(binding.calls, binding.weight is not None):
        if check.role not in base_roles:
            aggregates += bad_row_counters(check)
    keys = [*(binding.slices if binding.by else ()), *base_roles]  # a constant slice_0 is no key
    columns = [*(() if binding.by else ("0 AS slice_0",)), *keys, *aggregates]
    group = f"\nGROUP BY {', '.join(keys)}" if keys else ""  # no keys: one row, even for no rows
    return f"SELECT {', '.join(columns)}\nFROM input{group}"


def bad_row_counters(check: Check) -> list[str]:
    """base's count of the rows breaking ``check`` and its least such value (for a rule
    whose column is not one of base's keys)."""
    return [
        f"SUM(CASE WHEN {check.sql} THEN 1 ELSE 0 END) AS n_bad_{check.name}",
        f"MIN(CASE WHEN {check.sql} THEN {check.role} END) AS bad_{check.name}",
    ]


def base_sums(binding: Binding) -> list[str]:
    """base's aggregates that the steps read (``<SUM, COUNT, MIN or MAX of the rows> AS
    <name>``): all rows, used rows, their weight and the sums the intermediates declare;
    for a rounded state, the spread of its scores (``rounding.spread_aggregates``). A
    state keeps them (``sm.state``), and a roll-up merges them (``compose/rollup.py``)."""
    aggregates = ["COUNT(*) AS n_all", "COUNT(w) AS n", "SUM(w) AS w"]
    for name in needed(binding):
        aggregates += each_sums(binding, name, step(binding, name).base_aggregates)
    if binding.score_digits is not None:
        aggregates += spread_aggregates()
    return aggregates


def row_counts_sql(binding: Binding) -> str:
    """n_rows and n_excluded per slice (one row even for an empty source without slices)."""
    counts = (
        "CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n_rows, CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS BIGINT) AS n_excluded"
    )
    if not binding.by:
        return f"SELECT 0 AS slice_0, {counts}\nFROM base"
    by = ", ".join(binding.slices)
    return f"SELECT {by}, {counts}\nFROM base\nGROUP BY {by}"
