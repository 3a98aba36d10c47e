"""The statement of a state (``sm.state``): what a call's metrics keep of a source so
that the states of its parts (days, files, workers) roll up into the metrics of their
union without reading a row again (``sm.rollup``; its statement: ``compose/rollup.py``).

A state is one long table (docs/guide.md, "Roll-ups"), each row one ``state_part``:

* ``base``: a row of ``base`` (per slice and the call's base keys: score, label,
  classes) with its sums (``plan.base_sums``): every metric computed from ``base`` alone
  merges by adding them up (``merges_from_base``);
* the column of a mean over queries (its spec's ``per_query``): a row per slice and
  query, with the query's ``value`` (NULL: left out) and its ``weight`` in the mean;
* the column of a metric whose interval's spread is no sum of base (``Interval.kept``:
  the regression means'): a row per slice, the ``value`` x̄ of the rows' values its
  interval reads, their ``weight`` W and ``spread`` Σ w·(x − x̄)²;
* ``slices``: a row per slice the state holds, with ``state_slice``, the slice's values
  as text (``day="2026-11-01", country="US"``: each value quoted, ``"`` doubled; NULL
  unquoted; ``(all rows)`` without slices), so that a roll-up's statement, which does not
  know the states' slice columns, tells their slices apart;
* ``meta``: the call (format, version, metrics, roles, slices), as JSON in ``state_meta``.

The ``meta`` and ``slices`` rows also say which rows the state covers (``STATE_IDENTITY``):
``state_id``, an id made when the state is built (a random UUID: Python's, or the
statement's own ``uuid()`` when it runs in a warehouse, so that every run of a job has
its own), and ``state_source``, the source it read (a path made absolute, a table as
named; NULL for a frame, which has no name). A roll-up refuses a state held twice (one
id, two meta rows) and two states of one source holding the same slice (docs/guide.md,
"Roll-ups").
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Sequence
from typing import Any

from sqlmetrics.binding import Binding
from sqlmetrics.compose import shared_steps
from sqlmetrics.compose.intermediates import check_steps, needed
from sqlmetrics.compose.plan import base_keys, base_sums
from sqlmetrics.compose.rounding import rounded_score_sql
from sqlmetrics.compose.statement import assemble, indent
from sqlmetrics.errors import InvalidParameterError
from sqlmetrics.registry import intermediates, roles
from sqlmetrics.sources import is_frame, is_path, is_table_name
from sqlmetrics.spec import MetricCall
from sqlmetrics.sqltext import templates

BASE_PART, META_PART, SLICES_PART = "base", "meta", "slices"
ROUNDED_BASE = "rounded_base"  # base with its scores rounded (``score_digits``): a rounded state's base part
QUERY_COLUMNS = ("query", "value", "weight")
SPREAD_COLUMNS = ("value", "weight", "spread")
STATE_FORMAT = "sqlmetrics.state"
STATE_VERSION = 3  # 2: the regression means' spread parts; 3: the rows a state covers (STATE_IDENTITY)
# which rows a state covers: its slices' text (slices rows), its id and its source (meta and slices rows)
STATE_IDENTITY = ("state_slice", "state_id", "state_source")
ALL_ROWS = "(all rows)"  # the slice text of a state without slices


def meta_roles() -> tuple[str, ...]:
    """The column roles a state's meta always names (bound or null), in the order
    declared: those the core reads with code of its own (``spec.Role.generic`` off), not
    a table's (a role a family adds is named when a metric reads it)."""
    return tuple(role.name for role in roles() if not role.generic and not role.table)


def state_flags() -> tuple[str, ...]:
    """The table roles a state's meta records as bound or not, each a true or false under
    its name (``spec.Role.state_flag``: a run's judgments)."""
    return tuple(role.name for role in roles() if role.state_flag)


# A table a step reads: FROM or JOIN a name (a subquery opens a parenthesis instead).
_READS = re.compile(r"\b(?:FROM|JOIN)\s+([A-Za-z_][A-Za-z0-9_]*)\b")
_DEFINES = re.compile(
    r"\b([A-Za-z_][A-Za-z0-9_]*)\s+AS\s+(?:NOT\s+)?(?:MATERIALIZED\s+)?\(|\)\s+AS\s+([A-Za-z_][A-Za-z0-9_]*)"
)


def alias(aggregate: str) -> str:
    """The name of one of base's aggregates (``SUM(w) AS w``: ``w``)."""
    return aggregate.rsplit(" AS ", 1)[1].strip()


def merging(aggregate: str) -> str:
    """The function that merges one of base's aggregates: ``sum`` for a SUM or COUNT,
    ``min`` or ``max`` for a MIN or MAX."""
    function = aggregate.split("(", 1)[0].strip().lower()
    return function if function in ("min", "max") else "sum"


def merged(aggregate: str) -> str:
    """How states merge one of base's aggregates (``merging``), in SQL (counts stay BIGINT)."""
    name, function = alias(aggregate), merging(aggregate).upper()
    if aggregate.split("(", 1)[0].strip().upper() == "COUNT":
        return f"CAST(SUM({name}) AS BIGINT) AS {name}"
    return f"{function}({name}) AS {name}"


def per_query_calls(binding: Binding) -> list[MetricCall]:
    """The calls a state keeps per query: the means over queries."""
    return [call for call in binding.calls if call.spec.per_query is not None]


def spread_calls(binding: Binding) -> list[MetricCall]:
    """The calls a state keeps a spread of per slice (their interval's ``kept``)."""
    return [call for call in binding.calls if call.spec.interval is not None and call.spec.interval.kept is not None]


def reads_only_base(sql: str, allowed: Sequence[str] = ()) -> bool:
    """Whether ``sql`` (a step, its own WITH steps inside) reads no table but ``base``,
    the intermediates computed from base alone, and ``allowed``."""
    steps = intermediates()
    fine = {"base", *allowed, *(name for name in steps if _from_base(name))}
    return set(_READS.findall(sql)) - _defined(sql) <= fine


def _defined(sql: str) -> set[str]:
    """The names ``sql`` gives its own steps and subqueries."""
    return {name for pair in _DEFINES.findall(sql) for name in pair if name}


def _from_base(name: str) -> bool:
    """Whether intermediate ``name`` is computed from ``base`` alone (directly or through
    other such intermediates), in every form but the row plan's (a state keeps each
    distinct score once): what its templates read and the steps it declares it reads."""
    step = intermediates()[name]
    text = "\n".join(templates.load(template) for template in (step.template, step.distributed) if template)
    reads = set(_READS.findall(text)) - _defined(text) - {"base"}
    reads |= {*step.after, *(value for _, value in step.values)}
    return all(read in intermediates() and _from_base(read) for read in reads)


def merges_from_base(call: MetricCall, binding: Binding) -> bool:
    """Whether ``call``'s value is computed from base alone (a state's ``base`` part):
    its template and every step it reads."""
    alone = dataclasses.replace(binding, calls=(call,), distinct_scores=False)
    return reads_only_base(templates.load(call.spec.template)) and all(_from_base(name) for name in needed(alone))


def state_meta(binding: Binding) -> dict[str, Any]:
    """What a state records of its call: the metrics with every parameter, the columns,
    the slices, whether rows are weighted, and the decimals its scores were rounded to
    (only when rounded: a state of exact scores reads as before)."""
    rounded = {} if binding.score_digits is None else {"score_digits": binding.score_digits}
    return rounded | {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "metrics": [{"metric": call.spec.name, "params": call.kwargs} for call in binding.calls],
        # and a role a family declares, when bound (``Binding.generic_roles``)
        "columns": {role: binding.columns.get(role) for role in (*meta_roles(), *binding.generic_roles)},
        **{flag: binding.has(flag) for flag in state_flags()},
        "by": list(binding.by),
    }


def meta_text(binding: Binding) -> str:
    """``state_meta`` as the state's meta row holds it: JSON, keys sorted."""
    return json.dumps(state_meta(binding), sort_keys=True)


@dataclasses.dataclass(frozen=True)
class Identity:
    """Which rows a state covers: ``state_id`` (None: made by the statement when it runs,
    ``uuid()``) and ``source`` (``source_identity``; None: a frame)."""

    state_id: str | None
    source: str | None


def source_identity(source: Any) -> str | None:
    """The name a state records of its source: a local path made absolute (a relative and
    an absolute path to one file are one source), a URL or a table as named; None for a
    frame or any other object, which has no name."""
    if is_frame(source):
        return None
    if is_path(source):
        text = os.fspath(source)
        return text if "://" in text else os.path.abspath(text)
    return source if is_table_name(source) else None


def slice_text_sql(slices: Sequence[tuple[str, str]]) -> str:
    """SQL of a slice's values as text (``state_slice``) over the canonical slice columns
    of ``slices`` (canonical, user's name): ``day="2026-11-01", country=NULL``, each value
    quoted with ``"`` doubled inside, so that two slices have one text only if their values
    are alike; ``ALL_ROWS`` without slices."""
    pieces = []
    for i, (column, user) in enumerate(slices):
        text = f"CAST({column} AS VARCHAR)"
        quoted = f"COALESCE('\"' || REPLACE({text}, '\"', '\"\"') || '\"', 'NULL')"
        pieces.append(f"{templates.literal((', ' if i else '') + user + '=')} || {quoted}")
    return " || ".join(pieces) if pieces else templates.literal(ALL_ROWS)


def check_mergeable(binding: Binding) -> None:
    """Refuse a metric a state cannot keep: one computed from the rows themselves, as
    every metric of a call binding a table a state does not record (class scores)."""
    rows = [
        call.column for call in binding.calls if call.spec.per_query is None and not merges_from_base(call, binding)
    ]
    if any(binding.has(role.name) for role in roles() if role.table and not role.state_flag):
        rows = [call.column for call in binding.calls]
    if rows:
        raise InvalidParameterError(
            f"{', '.join(rows)} cannot be kept in a state: computed from the rows themselves (not from sums, the "
            "score histogram or per-query values), it does not merge; evaluate it over the rows"
        )


def state_keys(binding: Binding) -> tuple[str, ...]:
    """The keys of a state's base rows: base's, always with the score histogram's
    (``distinct_scores`` off: the state keeps each distinct score once)."""
    return base_keys(dataclasses.replace(binding, distinct_scores=False))


def compose_state(
    binding: Binding, source_sql: str, second_sql: str | None, dialect: str, meta: str, identity: Identity
) -> str:
    """The statement whose rows are the state of ``binding``'s metrics over
    ``source_sql``, ``meta`` its JSON description, ``identity`` the rows it covers."""
    binding = dataclasses.replace(binding, distinct_scores=False, ci=None)
    ctes = shared_steps(binding, source_sql, second_sql, dialect)
    queries = per_query_calls(binding)
    kept = set(needed(dataclasses.replace(binding, calls=tuple(queries))))
    for name in set(needed(binding)) - kept:  # what the base part already holds
        del ctes[name]
    by = ", ".join(binding.slices)
    for call in queries:
        ctes[f"q_{call.column}"] = per_query_sql(call, binding, by)
    for call in spread_calls(binding):
        ctes[f"s_{call.column}"] = spread_sql(call, binding)
    if binding.score_digits is not None:
        ctes[ROUNDED_BASE] = rounded_base_sql(binding)
    note = "the state: base's rows, each mean over queries' rows, the meta row (state_part names the part)"
    return assemble(ctes, _identified(binding, _state_select(binding, queries, meta), identity), note=note)


def rounded_base_sql(binding: Binding) -> str:
    """base (of scores as they are: the input rules read it) with its scores rounded to
    ``binding.score_digits`` decimals
    (``rounding.rounded_score_sql``): its rows merged per slice, rounded score and the
    other keys, each sum by its own function (the spread of the scores by MIN and MAX)."""
    rounded = rounded_score_sql("score", binding.score_digits)
    keys = [rounded if key == "score" else key for key in state_keys(binding)]
    columns = [*binding.slices, *(f"{rounded} AS score" if key == rounded else key for key in keys)]
    columns += [merged(aggregate) for aggregate in base_sums(binding)]
    return f"SELECT {', '.join(columns)}\nFROM base\nGROUP BY {', '.join([*binding.slices, *keys])}"


def per_query_sql(call: MetricCall, binding: Binding, by: str) -> str:
    """``call``'s template up to its per-query step, then that step's rows: per slice and
    query, its value and weight."""
    values = {"by": by, "weighted": templates.literal(binding.weighted)}
    values |= {name: templates.literal(value) for name, value in call.params}
    head, _ = templates.split_final_select(templates.render(call.spec.template, values, binding.slices))
    per_query = call.spec.per_query
    value, weight = (templates.fill(sql, values) for sql in per_query.of(call))
    return (
        f"{head}SELECT {by}, query, CAST({value} AS DOUBLE) AS value, CAST({weight} AS DOUBLE) AS weight\n"
        f"FROM {per_query.step}"
    )


def spread_sql(call: MetricCall, binding: Binding) -> str:
    """``call``'s kept spread over the rows, per slice: the mean as ``value``, W as
    ``weight``, and ``spread``."""
    interval = call.spec.interval
    params = {name: templates.literal(value) for name, value in call.params}  # a value's {{ cap }}, ...
    values = {"by": ", ".join(binding.slices), **{key: templates.fill(sql, params) for key, sql in interval.values}}
    step = templates.render(dict(interval.steps)[interval.kept.step], values, binding.slices)
    return f"SELECT {values['by']}, mean AS value, total AS weight, spread\nFROM (\n{indent(step)}\n) AS kept"


def state_columns(binding: Binding) -> list[str]:
    """A state's columns after ``part`` and the slices: base's keys and sums, then the
    per-query and kept spreads' columns (when a metric keeps them), ``meta`` and the
    rows the state covers (``STATE_IDENTITY``)."""
    sums = [alias(aggregate) for aggregate in base_sums(dataclasses.replace(binding, distinct_scores=False))]
    queries = ["query"] if per_query_calls(binding) else []
    if per_query_calls(binding) or spread_calls(binding):
        queries += ["value", "weight"]
    spreads = ["spread"] if spread_calls(binding) else []
    return [*state_keys(binding), *sums, *queries, *spreads, "state_meta", *STATE_IDENTITY]


def count_columns(binding: Binding) -> list[str]:
    """The columns of a state's base rows that count rows (its COUNT aggregates: ``n_all``,
    ``n``, ...), whole numbers from 0 to ``n_all``."""
    sums = base_sums(dataclasses.replace(binding, distinct_scores=False))
    return [alias(aggregate) for aggregate in sums if aggregate.split("(", 1)[0].strip().upper() == "COUNT"]


def _state_select(binding: Binding, queries: list[MetricCall], meta: str) -> str:
    """The state's rows: base's (once the input rules hold), each mean's queries, the meta
    row; the slices under the user's names."""
    columns = [column for column in state_columns(binding) if column not in ("state_id", "state_source")]
    slices = [(s, templates.quote(user)) for s, user in zip(binding.slices, binding.by)]
    checks = check_steps(binding)
    guarded = "".join(f"\nCROSS JOIN {name}" for name in checks)
    guarded += "\nWHERE " + " AND ".join(f"{name}.failure IS NULL" for name in checks)

    def row(part: str, relation: str | None, present: Sequence[str]) -> str:
        values = [f"{templates.literal(part)} AS state_part"]
        values += [f"{relation}.{s} AS {user}" if relation else f"NULL AS {user}" for s, user in slices]
        for column in columns:
            known = relation is not None and column in present
            values.append(f"{relation}.{column}" if known else f"{_typed_null(column)} AS {column}")
        return f"SELECT {', '.join(values)}"

    kept_apart = (*QUERY_COLUMNS, *SPREAD_COLUMNS, "state_meta", *STATE_IDENTITY)
    in_base = [column for column in columns if column not in kept_apart]
    base = "base" if binding.score_digits is None else ROUNDED_BASE
    parts = [f"{row(BASE_PART, base, in_base)}\nFROM {base}{guarded}"]
    parts += [f"{row(call.column, f'q_{call.column}', QUERY_COLUMNS)}\nFROM q_{call.column}" for call in queries]
    parts += [
        f"{row(call.column, f's_{call.column}', SPREAD_COLUMNS)}\nFROM s_{call.column}"
        for call in spread_calls(binding)
    ]
    text = slice_text_sql(list(zip(binding.slices, binding.by)))
    parts.append(
        row(SLICES_PART, "kept_slices", ()).replace(
            f"{_typed_null('state_slice')} AS state_slice", f"{text} AS state_slice"
        )
        + f"\nFROM (SELECT DISTINCT {', '.join(binding.slices) or '0 AS all_rows'} FROM base) AS kept_slices"
    )
    parts.append(
        row(META_PART, None, ()).replace(
            f"{_typed_null('state_meta')} AS state_meta", f"{templates.literal(meta)} AS state_meta"
        )
    )
    return "\nUNION ALL\n".join(parts)


def _identified(binding: Binding, parts: str, identity: Identity) -> str:
    """The state's rows ``parts`` with ``state_id`` and ``state_source`` on its meta and
    slices rows: the id given, or one ``uuid()`` the statement makes when it runs, in a
    one-row relation read once (so that every row of one run holds the same id)."""
    columns = ["state_part", *(f"{templates.quote(user)} AS {templates.quote(user)}" for user in binding.by)]
    columns += [column for column in state_columns(binding) if column not in ("state_id", "state_source")]
    identified = f"parts.state_part IN ({templates.literal(META_PART)}, {templates.literal(SLICES_PART)})"
    made = identity.state_id is None
    state_id = "run.state_id" if made else f"CAST({templates.literal(identity.state_id)} AS VARCHAR)"
    source = f"CAST({templates.literal(identity.source)} AS VARCHAR)"
    select = [f"parts.{column}" for column in columns]
    select += [f"CASE WHEN {identified} THEN {state_id} END AS state_id"]
    select += [f"CASE WHEN {identified} THEN {source} END AS state_source"]
    run = "\nCROSS JOIN (SELECT CAST(uuid() AS VARCHAR) AS state_id) AS run" if made else ""
    return f"SELECT {', '.join(select)}\nFROM (\n{indent(parts)}\n) AS parts{run}"


def _typed_null(column: str) -> str:
    """A NULL of the column's type where the type is known (numbers and text), so that
    every engine unions the parts alike; a plain NULL for a key of the user's type."""
    if column in ("state_meta", "state_part", *STATE_IDENTITY):
        return "CAST(NULL AS VARCHAR)"
    if column in ("value", "weight", "spread", "score", "label", "w"):
        return "CAST(NULL AS DOUBLE)"
    return "NULL"
