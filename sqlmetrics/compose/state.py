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
* ``meta``: the call (format, version, metrics, roles, slices), as JSON in ``state_meta``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from typing import Any

from sqlmetrics import templates
from sqlmetrics.binding import Binding
from sqlmetrics.compose import shared_steps
from sqlmetrics.compose.intermediates import needed
from sqlmetrics.compose.plan import base_keys, base_sums
from sqlmetrics.compose.rounding import rounded_score_sql
from sqlmetrics.compose.statement import assemble, indent
from sqlmetrics.errors import InvalidParameterError
from sqlmetrics.registry import intermediates
from sqlmetrics.rules.sql import check_steps
from sqlmetrics.spec import MetricCall

BASE_PART, META_PART = "base", "meta"
ROUNDED_BASE = "rounded_base"  # base with its scores rounded (``score_digits``): a rounded state's base part
QUERY_COLUMNS = ("query", "value", "weight")
SPREAD_COLUMNS = ("value", "weight", "spread")
STATE_FORMAT = "sqlmetrics.state"
STATE_VERSION = 2  # 2: the regression means' spread parts
ROLES = ("label", "score", "prediction", "query", "item", "weight")

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
        "columns": {role: getattr(binding, role) for role in ROLES},
        "judgments": binding.judgments,
        "by": list(binding.by),
    }


def meta_text(binding: Binding) -> str:
    """``state_meta`` as the state's meta row holds it: JSON, keys sorted."""
    return json.dumps(state_meta(binding), sort_keys=True)


def check_mergeable(binding: Binding) -> None:
    """Refuse a metric a state cannot keep: one computed from the rows themselves."""
    rows = [
        call.column for call in binding.calls if call.spec.per_query is None and not merges_from_base(call, binding)
    ]
    if binding.class_scores is not None:
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


def compose_state(binding: Binding, source_sql: str, second_sql: str | None, dialect: str, meta: str) -> str:
    """The statement whose rows are the state of ``binding``'s metrics over
    ``source_sql``, ``meta`` its JSON description."""
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
    return assemble(ctes, _state_select(binding, queries, meta), note=note)


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
    values = {"by": ", ".join(binding.slices), **dict(interval.values)}
    step = templates.render(dict(interval.steps)[interval.kept.step], values, binding.slices)
    return f"SELECT {values['by']}, mean AS value, total AS weight, spread\nFROM (\n{indent(step)}\n) AS kept"


def state_columns(binding: Binding) -> list[str]:
    """A state's columns after ``part`` and the slices: base's keys and sums, then the
    per-query and kept spreads' columns (when a metric keeps them) and ``meta``."""
    sums = [alias(aggregate) for aggregate in base_sums(dataclasses.replace(binding, distinct_scores=False))]
    queries = ["query"] if per_query_calls(binding) else []
    if per_query_calls(binding) or spread_calls(binding):
        queries += ["value", "weight"]
    spreads = ["spread"] if spread_calls(binding) else []
    return [*state_keys(binding), *sums, *queries, *spreads, "state_meta"]


def _state_select(binding: Binding, queries: list[MetricCall], meta: str) -> str:
    """The state's rows: base's (once the input rules hold), each mean's queries, the meta
    row; the slices under the user's names."""
    columns = state_columns(binding)
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

    in_base = [column for column in columns if column not in (*QUERY_COLUMNS, *SPREAD_COLUMNS, "state_meta")]
    base = "base" if binding.score_digits is None else ROUNDED_BASE
    parts = [f"{row(BASE_PART, base, in_base)}\nFROM {base}{guarded}"]
    parts += [f"{row(call.column, f'q_{call.column}', QUERY_COLUMNS)}\nFROM q_{call.column}" for call in queries]
    parts += [
        f"{row(call.column, f's_{call.column}', SPREAD_COLUMNS)}\nFROM s_{call.column}"
        for call in spread_calls(binding)
    ]
    parts.append(
        row(META_PART, None, ()).replace(
            f"{_typed_null('state_meta')} AS state_meta", f"{templates.literal(meta)} AS state_meta"
        )
    )
    return "\nUNION ALL\n".join(parts)


def _typed_null(column: str) -> str:
    """A NULL of the column's type where the type is known (numbers and text), so that
    every engine unions the parts alike; a plain NULL for a key of the user's type."""
    if column in ("state_meta", "state_part"):
        return "CAST(NULL AS VARCHAR)"
    if column in ("value", "weight", "spread", "score", "label", "w"):
        return "CAST(NULL AS DOUBLE)"
    return "NULL"
