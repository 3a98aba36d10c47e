"""The statement of a roll-up (``sm.rollup``): the metrics of the union of the parts whose
states (``compose/state.py``) it reads, for any coarser slicing, without a row of theirs.

``base`` is the states' base rows added up per slice of the roll-up and base key (each
of base's sums merged by its own function: ``state.merged``); from it every metric
computed from base alone runs its own template, as over the rows. A mean over queries is
the weighted mean of its queries' values, ``Σ g·x / Σ g`` over the queries kept, with
the queries kept and left out counted; a query held by two of the merged states (or
slices) is refused (``query_repeats``): its rows were split, and its value is not the
mean of their values. Intervals come from the same steps: the metrics' own from base,
the t over queries from the queries' values.
"""

from __future__ import annotations

import dataclasses

from sqlmetrics import intervals, templates
from sqlmetrics.binding import Binding
from sqlmetrics.compose.intermediates import intermediate_sql, needed
from sqlmetrics.compose.plan import base_keys, base_sums, row_counts_sql
from sqlmetrics.compose.select import final_select
from sqlmetrics.compose.spread import t_quantiles_needed, with_spread
from sqlmetrics.compose.state import BASE_PART, merged
from sqlmetrics.compose.statement import assemble, indent
from sqlmetrics.rules.columns import ERROR_PREFIX
from sqlmetrics.spec import MetricCall

REPEATS_STEP = "query_repeats"


def compose_rollup(binding: Binding, state_sql: str, dialect: str = "duckdb") -> str:
    """The statement rolling the states read by ``state_sql`` up into ``binding``'s
    metrics per slice of its ``by`` (the user's names of slices the states have)."""
    summed = dataclasses.replace(binding, calls=tuple(c for c in binding.calls if c.spec.per_query is None))
    ctes = {"base": merged_base_sql(summed, state_sql), "row_counts": row_counts_sql(summed)}
    for name in needed(summed):
        ctes[name] = intermediate_sql(summed, name, dialect)
    if t_quantiles_needed(binding):
        ctes["t_quantiles"] = intervals.t_table_sql(binding.ci)
    queries = [call for call in binding.calls if call.spec.per_query is not None]
    for call in binding.calls:
        if call.spec.per_query is not None:
            ctes[f"q_{call.column}"] = _queries_sql(binding, call, state_sql)
        ctes[f"m_{call.column}"] = metric_step(binding, call)
    checks = []
    if queries:
        ctes[REPEATS_STEP] = repeats_sql(binding, queries)
        checks = [REPEATS_STEP]
    return assemble(ctes, final_select(binding, checks))


def metric_step(binding: Binding, call: MetricCall) -> str:
    """``call``'s step in a roll-up: its template over the merged base, or for a mean
    over queries the mean of its queries (with the interval when the call asks)."""
    by = ", ".join(binding.slices)
    values = {"by": by, "weighted": templates.literal(binding.weighted)}
    values |= {name: templates.literal(value) for name, value in call.params}
    if call.spec.per_query is None:
        step = templates.render(call.spec.template, values, binding.slices)
    else:
        step = _mean_sql(binding, call)
        values |= {"per_query": f"q_{call.column}", "value": "value", "weight": "weight"}
    if not binding.analytic(call):
        return step
    if call.spec.per_query is not None:  # the t over the queries, read from the queries' rows
        spec = dataclasses.replace(call.spec, interval=dataclasses.replace(call.spec.interval, values=()))
        call = dataclasses.replace(call, spec=spec)
    return with_spread(step, call, binding, values)


def merged_base_sql(binding: Binding, state_sql: str) -> str:
    """``base`` from the states' base rows: per slice of the roll-up and base key, each sum
    merged (``state.merged``)."""
    keys = list(base_keys(binding))
    slices = [f"{templates.quote(user)} AS {s}" for s, user in zip(binding.slices, binding.by)] or ["0 AS slice_0"]
    group = [templates.quote(user) for user in binding.by] + keys
    columns = [*slices, *keys, *(merged(aggregate) for aggregate in base_sums(binding))]
    grouped = f"\nGROUP BY {', '.join(group)}" if group else ""
    return f"SELECT {', '.join(columns)}\nFROM {state_sql}\nWHERE state_part = {templates.literal(BASE_PART)}{grouped}"


def _queries_sql(binding: Binding, call: MetricCall, state_sql: str) -> str:
    """A mean's queries from the states, per slice of the roll-up: value, weight, and how
    many states held the query (``copies``, more than one refused by ``query_repeats``)."""
    slices = [f"{templates.quote(user)} AS {s}" for s, user in zip(binding.slices, binding.by)] or ["0 AS slice_0"]
    group = ", ".join([*(templates.quote(user) for user in binding.by), "query"])
    return (
        f"SELECT {', '.join(slices)}, query, MIN(value) AS value, MIN(weight) AS weight, COUNT(*) AS copies\n"
        f"FROM {state_sql}\nWHERE state_part = {templates.literal(call.column)}\nGROUP BY {group}"
    )


def _mean_sql(binding: Binding, call: MetricCall) -> str:
    """A mean over queries from its queries' rows: Σ g·x / Σ g over the queries kept
    (x not NULL), the queries kept and those left out."""
    by, name = ", ".join(binding.slices), call.base_name
    kept, skipped = (f"{name}_{out}" for out in call.spec.outputs)
    return (
        f"SELECT {by},\n"
        f"       SUM(weight * value) / CAST(NULLIF(SUM(CASE WHEN value IS NOT NULL THEN weight END), 0) AS DOUBLE)"
        f" AS {name},\n"
        f"       COUNT(value) AS {kept}, COUNT(*) - COUNT(value) AS {skipped}\n"
        f"FROM q_{call.column}\nGROUP BY {by}"
    )


def repeats_sql(binding: Binding, queries: list[MetricCall]) -> str:
    """One row whose ``failure`` refuses the roll-up when a mean's query is held by more
    than one of the merged states or slices, naming the first such query."""
    cases = []
    for call in queries:
        relation = f"q_{call.column}"
        count = f"(SELECT COUNT(*) FROM {relation} WHERE copies > 1)"
        example = f"(SELECT MIN(CAST(query AS VARCHAR)) FROM {relation} WHERE copies > 1)"
        before = f"{ERROR_PREFIX}{call.column} is a mean over queries, and a query's value does not merge: "
        after = " quer(ies) appear in more than one of the merged states or slices, e.g. query "
        advice = (
            ". Roll up only states whose queries do not recur (a query column unique per day, such as the user and "
            "the day together), or keep the slice that separates them in by="
        )
        said = [templates.literal(text) for text in (before, after, advice)]
        message = f"{said[0]} || CAST({count} AS VARCHAR) || {said[1]} || {example} || {said[2]}"
        cases.append(f"    WHEN {count} > 0 THEN error({message})")
    return "SELECT CASE\n" + indent("\n".join(cases)) + "\n  END AS failure"
