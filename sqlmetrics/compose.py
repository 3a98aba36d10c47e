"""Composing many metrics into one SQL statement that scans the source once.

The statement is a chain of CTEs:

``input``       the only place user column names appear (quoted): slices, label, score,
                weight, query under canonical names, and ``w``: the weight of a used row,
                NULL for a row with a NULL in a bound column;
``base``        the one aggregation over the source: one row per slice, distinct score
                and label with its weight, row counts and bad-row counters
                (materialized: everything else reads it);
``checks``      the input rules of ``checks.py``, raising ``error()`` on bad data;
``row_counts``  n_rows and n_excluded per slice, the spine of the result;
intermediates   ``score_hist``, ``confusion`` (from base), ``query_rows`` (the used rows
                of the source, for metrics that sort within queries): rendered once
                each, only if a metric reads them;
``m_<label>``   one CTE per metric, its template from ``sql/``;

and a final SELECT that left-joins every metric onto ``row_counts`` by slice (NULL-safe)
and sorts by the slice keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from sqlmetrics import templates
from sqlmetrics.binding import Binding
from sqlmetrics.checks import checks_for, message_parts


@dataclass(frozen=True)
class Intermediate:
    """A shared step between ``base`` and the metrics, rendered once per call.

    ``collects`` names a metric parameter whose distinct values across the call are
    rendered as a one-column table ``{{ <collects>s }}`` (e.g. every threshold used).
    """

    template: str
    after: tuple[str, ...] = ()
    collects: str | None = None


INTERMEDIATES = {
    "score_hist": Intermediate("intermediates/score_hist.sql"),
    "query_rows": Intermediate("intermediates/query_rows.sql"),
    "confusion": Intermediate("intermediates/confusion.sql", after=("score_hist",), collects="threshold"),
}


# base's grouping keys besides the slices; rules on them are checked on base's groups.
BASE_KEYS = ("score", "label")


def quote(name: str) -> str:
    """A column name as a quoted DuckDB identifier: any text is just a name."""
    return exp.to_identifier(name, quoted=True).sql("duckdb")


def compose(binding: Binding, source_sql: str) -> str:
    """The one SQL statement computing every metric of ``binding`` over ``source_sql``."""
    by = ", ".join(binding.slices)
    ctes = {
        "input": _input_sql(binding, source_sql),
        "base": _base_sql(binding),
        "checks": _checks_sql(binding),
        "row_counts": _row_counts_sql(binding, by),
    }
    for name in _intermediates_needed(binding):
        ctes[name] = templates.render(
            INTERMEDIATES[name].template, {"by": by, **_collected(binding, name)}, binding.slices
        )
    for call in binding.calls:
        values = {"by": by, **{name: templates.literal(value) for name, value in call.params}}
        ctes[f"m_{call.label}"] = templates.render(call.spec.template, values, binding.slices)
    with_clause = ",\n".join(
        f"{name} AS {'MATERIALIZED ' if name == 'base' else ''}(\n{_indent(sql)}\n)" for name, sql in ctes.items()
    )
    return f"WITH\n{with_clause}\n{_final_select(binding)}"


def _input_sql(binding: Binding, source_sql: str) -> str:
    """The source under canonical names. ``w`` is the weight of a used row and NULL for a
    row excluded for a NULL in a bound column, so sums over ``w`` skip excluded rows."""
    slices = [f"{quote(col)} AS slice_{i}" for i, col in enumerate(binding.by, 1)] or ["0 AS slice_0"]
    roles = binding.roles
    weight = f"CAST({quote(roles['weight'])} AS DOUBLE)" if "weight" in roles else "CAST(1 AS DOUBLE)"
    excluded = " OR ".join(f"{quote(column)} IS NULL" for column in roles.values())
    columns = [
        *slices,
        f"CAST({quote(roles['label'])} AS DOUBLE) AS label",
        f"CAST({quote(roles['score'])} AS DOUBLE) AS score",
        f"{weight} AS weight",
        f"CASE WHEN {excluded} THEN NULL ELSE {weight} END AS w",
    ]
    if binding.needs_query:
        columns.append(f"{quote(roles['query'])} AS query")
    return f"SELECT {', '.join(columns)}\nFROM {source_sql}"


def _base_sql(binding: Binding) -> str:
    """One row per slice, distinct score and label: the score histogram plus what the
    checks and the row counts need. Labels are keys rather than summed into positive
    and negative weights: fewer aggregate states per group, which is what costs when
    nearly every score is distinct, and bad labels show up as groups."""
    aggregates = ["COUNT(*) AS n_all", "COUNT(w) AS n", "SUM(w) AS w"]
    for check, _ in checks_for(binding.calls, binding.weight is not None):
        if check.role not in BASE_KEYS:
            aggregates += [
                f"SUM(CASE WHEN {check.sql} THEN 1 ELSE 0 END) AS n_bad_{check.name}",
                f"MIN(CASE WHEN {check.sql} THEN {check.role} END) AS bad_{check.name}",
            ]
    keys = [*(binding.slices if binding.by else ()), *BASE_KEYS]  # a constant slice_0 is no key
    columns = [*(() if binding.by else ("0 AS slice_0",)), *keys, *aggregates]
    return f"SELECT {', '.join(columns)}\nFROM input\nGROUP BY {', '.join(keys)}"


def _checks_sql(binding: Binding) -> str:
    """One row whose ``failure`` raises an error naming the first rule the data breaks."""
    cases = []
    for check, metrics in checks_for(binding.calls, binding.weight is not None):
        before, between = message_parts(check, binding.roles[check.role], metrics)
        if check.role in BASE_KEYS:
            count = f"SUM(CASE WHEN {check.sql} THEN n_all ELSE 0 END)"
            example = f"MIN(CASE WHEN {check.sql} THEN {check.role} END)"
        else:
            count, example = f"SUM(n_bad_{check.name})", f"MIN(bad_{check.name})"
        message = (
            f"{templates.literal(before)} || CAST({count} AS VARCHAR) || {templates.literal(between)}"
            f" || CAST({example} AS VARCHAR)"
        )
        cases.append(f"    WHEN {count} > 0 THEN error({message})")
    return "SELECT CASE\n" + "\n".join(cases) + "\n  END AS failure\nFROM base"


def _row_counts_sql(binding: Binding, by: str) -> str:
    counts = (
        "CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n_rows, CAST(COALESCE(SUM(n_all) - SUM(n), 0) AS BIGINT) AS n_excluded"
    )
    if not binding.by:  # one row even for an empty source
        return f"SELECT 0 AS slice_0, {counts}\nFROM base"
    return f"SELECT {by}, {counts}\nFROM base\nGROUP BY {by}"


def _intermediates_needed(binding: Binding) -> list[str]:
    """The intermediates the metrics read, each after the ones it reads, in a stable order."""
    ordered: list[str] = []

    def add(name: str) -> None:
        for dependency in INTERMEDIATES[name].after:
            add(dependency)
        if name not in ordered:
            ordered.append(name)

    for call in binding.calls:
        add(call.spec.reads)
    return ordered


def _collected(binding: Binding, name: str) -> dict[str, str]:
    param = INTERMEDIATES[name].collects
    if param is None:
        return {}
    values = sorted({dict(call.params)[param] for call in binding.calls if call.spec.reads == name})
    rows = ", ".join(f"({templates.literal(value)})" for value in values)
    return {f"{param}s": f"(VALUES {rows}) AS t({param})"}


def _final_select(binding: Binding) -> str:
    slices = binding.slices
    columns = [f"row_counts.{s} AS {quote(user)}" for s, user in zip(slices, binding.by)]
    columns += ["row_counts.n_rows", "row_counts.n_excluded"]
    joins = []
    for call in binding.calls:
        cte = f"m_{call.label}"
        columns.append(f"{cte}.{call.spec.name} AS {call.label}")
        columns += [f"COALESCE({cte}.{call.spec.name}_{out}, 0) AS {call.label}_{out}" for out in call.spec.outputs]
        joins.append(f"LEFT JOIN {cte} ON {templates.same_slice(slices, 'row_counts', cte)}")
    order = f"\nORDER BY {', '.join(f'row_counts.{s}' for s in slices)}" if binding.by else ""
    return (
        f"SELECT {', '.join(columns)}\nFROM row_counts\n"
        + "\n".join(joins)
        + "\nCROSS JOIN checks\nWHERE checks.failure IS NULL"
        + order
    )


def _indent(sql: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line if line else line for line in sql.splitlines())
