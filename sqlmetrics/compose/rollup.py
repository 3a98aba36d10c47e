"""The statement of a roll-up (``sm.rollup``): the metrics of the union of the parts whose
states (``compose/state.py``) it reads, for any coarser slicing, without a row of theirs.

``base`` is the states' base rows added up per slice of the roll-up and base key (each
of base's sums merged by its own function: ``state.merged``); from it every metric
computed from base alone runs its own template, as over the rows. A mean over queries is
the weighted mean of its queries' values, ``Σ g·x / Σ g`` over the queries kept, with
the queries kept and left out counted; a query held by two of the merged states (or
slices) is refused (``query_repeats``): its rows were split, and its value is not the
mean of their values. Before it, rows held twice are refused (``state_repeats``): a state
whose id is in two meta rows (given, or INSERTed, twice), or two states of one source
holding one slice (``state_slice``: a job run twice writes two ids for the same rows).
Intervals come from the same steps: the metrics' own from base, the t over queries from
the queries' values. Rolling up rounded states (``score_digits``),
each metric that rounding can change also gets its bound ``<column>_max_error``
(``compose/rounding_bound.py``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlmetrics import intervals
from sqlmetrics.binding import Binding
from sqlmetrics.compose.intermediates import intermediate_sql, needed
from sqlmetrics.compose.plan import base_keys, base_sums, row_counts_sql
from sqlmetrics.compose.rounding_bound import max_error_steps
from sqlmetrics.compose.select import final_select
from sqlmetrics.compose.spread import t_quantiles_needed, with_spread
from sqlmetrics.compose.state import BASE_PART, META_PART, SLICES_PART, merged, reads_only_base, spread_calls
from sqlmetrics.compose.statement import assemble, indent
from sqlmetrics.errors import Counted, InvalidParameterError, Keyword
from sqlmetrics.registry import get, resolve
from sqlmetrics.rules.columns import ERROR_PREFIX, counted_sql
from sqlmetrics.spec import MetricCall
from sqlmetrics.sqltext import templates

REPEATS_STEP = "query_repeats"
METAS_STEP = "state_metas"
STATE_REPEATS_STEP, COPIES_STEP, SHARED_STEP = "state_repeats", "state_copies", "shared_slices"


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
        if binding.analytic(call) and call in spread_calls(binding):
            ctes[f"s_{call.column}"] = _spreads_sql(binding, call, state_sql)
        ctes[f"m_{call.column}"] = metric_step(binding, call)
    ctes |= max_error_steps(binding, metric_step, dialect)
    ctes[METAS_STEP] = metas_sql(state_sql)
    ctes |= state_repeats_ctes(state_sql)
    # each refusal reads the one before it: the last, read once (each step inlined once on
    # Spark, whose stages would raise one refusal twice), forces them all, in order
    last = STATE_REPEATS_STEP
    if queries:
        ctes[REPEATS_STEP], last = repeats_sql(binding, queries), REPEATS_STEP
    return assemble(ctes, final_select(binding, [last]))


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
    kept = call.spec.interval.kept
    if kept is not None:  # the kept spread merged from the states' rows of it, in its step's place
        steps = tuple(
            (name, kept.merged if name == kept.step else template) for name, template in call.spec.interval.steps
        )
        spec = dataclasses.replace(call.spec, interval=dataclasses.replace(call.spec.interval, steps=steps))
        call, values = dataclasses.replace(call, spec=spec), values | {"parts": f"s_{call.column}"}
    return with_spread(step, call, binding, values)


def merged_base_sql(binding: Binding, state_sql: str) -> str:
    """``base`` from the states' base rows: per slice of the roll-up and base key, each sum
    merged (``state.merged``)."""
    keys = list(base_keys(binding))
    slices = _rolled_slices(binding)
    group = [templates.quote(user) for user in binding.by] + keys
    columns = [*slices, *keys, *(merged(aggregate) for aggregate in base_sums(binding))]
    grouped = f"\nGROUP BY {', '.join(group)}" if group else ""
    return f"SELECT {', '.join(columns)}\nFROM {state_sql}\nWHERE state_part = {templates.literal(BASE_PART)}{grouped}"


def _queries_sql(binding: Binding, call: MetricCall, state_sql: str) -> str:
    """A mean's queries from the states, per slice of the roll-up: value, weight, and how
    many states held the query (``copies``, more than one refused by ``query_repeats``)."""
    slices = _rolled_slices(binding)
    group = ", ".join([*(templates.quote(user) for user in binding.by), "query"])
    return (
        f"SELECT {', '.join(slices)}, query, MIN(value) AS value, MIN(weight) AS weight, COUNT(*) AS copies\n"
        f"FROM {state_sql}\nWHERE state_part = {templates.literal(call.column)}\nGROUP BY {group}"
    )


def _spreads_sql(binding: Binding, call: MetricCall, state_sql: str) -> str:
    """A kept spread's rows from the states (``Interval.kept``): per slice of each state,
    the mean ``value``, W as ``weight`` and ``spread``, under the roll-up's slices."""
    return (
        f"SELECT {', '.join(_rolled_slices(binding))}, value, weight, spread\n"
        f"FROM {state_sql}\nWHERE state_part = {templates.literal(call.column)}"
    )


def _rolled_slices(binding: Binding) -> list[str]:
    """The states' slice columns that the roll-up keeps, under their canonical names."""
    return [f"{templates.quote(user)} AS {s}" for s, user in zip(binding.slices, binding.by)] or ["0 AS slice_0"]


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


def metas_sql(state_sql: str) -> str:
    """One row whose ``failure`` refuses states that are not of one call: meta rows with
    more than one distinct ``state_meta``, or none (not states)."""
    count = f"(SELECT COUNT(DISTINCT state_meta) FROM {state_sql} WHERE state_part = {templates.literal(META_PART)})"
    before = f"{ERROR_PREFIX}the states are not of one call: their meta rows hold "
    after = (
        " distinct state_meta (none: not states; more: states of different calls, which do not merge); roll up "
        "the states of one call's statement (sm.to_sql(..., state=True) with the same arguments)"
    )
    message = f"{templates.literal(before)} || CAST({count} AS VARCHAR) || {templates.literal(after)}"
    return f"SELECT CASE WHEN {count} <> 1 THEN error({message}) END AS failure"


def bound_in(meta: dict[str, Any]) -> list[str]:
    """The roles the states of ``meta``'s call bound to a column (they route a metric's
    name as the call did: ``registry.routed``)."""
    return [role for role, column in meta["columns"].items() if column is not None]


def rollup_binding(meta: dict[str, Any], by: Any, metrics: Any, ci: float | None) -> Binding:
    """The binding of a roll-up of states of ``meta``'s call (``state.state_meta``): its
    metrics (or those of ``metrics``), per slice of ``by`` (some of the states' slices),
    with ``ci``."""
    calls = tuple(resolve([_call(entry) for entry in meta["metrics"]]))  # a metric twice (an edit) refused by name
    if metrics is not None:
        wanted = resolve(metrics, bound=bound_in(meta))
        missing = [call.column for call in wanted if call not in calls]
        if missing:
            raise InvalidParameterError(
                f"{', '.join(missing)} not in the states, which keep {', '.join(c.column for c in calls)}"
            )
        calls = tuple(wanted)
    slices = [by] if isinstance(by, str) else list(by or [])
    if len(set(slices)) != len(slices):
        raise InvalidParameterError(Keyword("by"), f" lists a column twice: {slices}")
    unknown = [column for column in slices if column not in meta["by"]]
    if unknown:
        raise InvalidParameterError(
            Keyword("by"),
            f": {', '.join(map(repr, unknown))} not among the states' slices {meta['by']}: a roll-up "
            "can only drop slices",
        )
    bound = {role: column for role, column in meta["columns"].items() if column is not None}
    binding = Binding(calls, bound, by=tuple(slices), score_digits=meta.get("score_digits"))
    if ci is not None:
        intervals.check_level(ci)
        binding = dataclasses.replace(binding, ci=ci)
        _check_intervals(binding)
    return binding


def _call(entry: dict[str, Any]) -> MetricCall:
    spec = get(entry["metric"])
    return MetricCall(spec, tuple((p.name, p.validate(spec.name, entry["params"].get(p.name))) for p in spec.params))


def _check_intervals(binding: Binding) -> None:
    """Refuse an interval the states cannot give: none analytic, or one read from the rows."""
    without = [call.column for call in binding.calls if intervals.interval_of(call) is None]
    if without:
        others = [call.column for call in binding.calls if call.column not in without]
        subset = f", or ci for the others alone (metrics={others!r})" if others else ""
        raise InvalidParameterError(
            f"{', '.join(without)} has no analytic interval, and a bootstrap resamples rows, which a state does "
            f"not keep: roll up without ci{subset}, or evaluate the rows with ci"
        )
    rows = [
        call.column
        for call in binding.calls
        if call.spec.per_query is None
        and not reads_only_base(metric_step(binding, call), ("t_quantiles", f"s_{call.column}"))
    ]
    if rows:
        raise InvalidParameterError(
            f"{', '.join(rows)}: its interval reads the rows (their variance is no sum a state keeps): roll up "
            "without ci, or evaluate the rows with ci"
        )


def state_repeats_ctes(state_sql: str) -> dict[str, str]:
    """The steps refusing rows the states hold twice, read after ``metas_sql``'s:
    ``state_copies``, the ids of more than one meta row (a state given or INSERTed twice);
    ``shared_slices``, each source's slices held by more than one state (a job run twice,
    a source read again after it grew), with two of their ids; ``state_repeats``, one row
    whose ``failure`` names the first of either."""
    meta, slices = templates.literal(META_PART), templates.literal(SLICES_PART)
    copies = (
        f"SELECT state_id, COUNT(*) AS copies\nFROM {state_sql}\nWHERE state_part = {meta}\n"
        "GROUP BY state_id\nHAVING COUNT(*) > 1"
    )
    shared = (
        "SELECT state_source, state_slice, MIN(state_id) AS one_id, MAX(state_id) AS other_id\n"
        f"FROM {state_sql}\nWHERE state_part = {slices} AND state_source IS NOT NULL\n"
        "GROUP BY state_source, state_slice\nHAVING COUNT(DISTINCT state_id) > 1"
    )
    twice = f"(SELECT COUNT(*) FROM {COPIES_STEP})"
    copied = f"(SELECT MIN(state_id || ' (held ' || CAST(copies AS VARCHAR) || ' times)') FROM {COPIES_STEP})"
    said = [
        f"{ERROR_PREFIX}",
        " more than once (a state's id in more than one meta row), e.g. the state ",
        ": its rows would be counted twice; keep each state once (a job's rows INSERTed once)",
    ]
    held_states = counted_sql(Counted("state is held", "states are held"), twice)
    copies_message = f"{templates.literal(said[0])} || {held_states} || {templates.literal(said[1])}"
    copies_message += f" || {copied} || {templates.literal(said[2])}"
    held = f"(SELECT COUNT(*) FROM {SHARED_STEP})"
    example = (
        f"(SELECT MIN('the states ' || one_id || ' and ' || other_id || ' of the source ' || state_source || "
        f"' both hold the slice ' || state_slice) FROM {SHARED_STEP})"
    )
    said = [
        f"{ERROR_PREFIX}two states cover the same rows: ",
        " by more than one state, e.g. ",
        ". Their rows would be counted twice (a job run twice, a source read again after it grew): keep one state "
        "per slice of a source, or slice each state by what tells its rows apart (the day)",
    ]
    held_slices = counted_sql(Counted("slice of a source is held", "slices of a source are held"), held)
    shared_message = f"{templates.literal(said[0])} || {held_slices} || {templates.literal(said[1])}"
    shared_message += f" || {example} || {templates.literal(said[2])}"
    failure = (
        f"SELECT CASE\n    WHEN {METAS_STEP}.failure IS NOT NULL THEN NULL\n"
        f"    WHEN {twice} > 0 THEN error({copies_message})\n"
        f"    WHEN {held} > 0 THEN error({shared_message})\n"
        f"  END AS failure\nFROM {METAS_STEP}"
    )
    return {COPIES_STEP: copies, SHARED_STEP: shared, STATE_REPEATS_STEP: failure}


def repeats_sql(binding: Binding, queries: list[MetricCall]) -> str:
    """One row whose ``failure`` refuses the roll-up when a mean's query is held by more
    than one of the merged states or slices, naming the first such query; read after
    ``state_repeats``' (and so ``metas_sql``'s), whose refusals come first."""
    cases = []
    for call in queries:
        relation = f"q_{call.column}"
        count = f"(SELECT COUNT(*) FROM {relation} WHERE copies > 1)"
        example = f"(SELECT MIN(CAST(query AS VARCHAR)) FROM {relation} WHERE copies > 1)"
        before = f"{ERROR_PREFIX}{call.column} is a mean over queries, and a query's value does not merge: "
        after = " in more than one of the merged states or slices, e.g. query "
        advice = (
            ". Roll up only states whose queries do not recur (a query column unique per day, such as the user and "
            "the day together), or keep the slice that separates them in by="
        )
        said = [templates.literal(text) for text in (before, after, advice)]
        repeated = counted_sql(Counted("query appears", "queries appear"), count)
        message = f"{said[0]} || {repeated} || {said[1]} || {example} || {said[2]}"
        cases.append(f"    WHEN {count} > 0 THEN error({message})")
    # read after the states' metas and repeats (a state of another call, then rows held twice, are said first)
    return (
        f"SELECT CASE\n    WHEN {STATE_REPEATS_STEP}.failure IS NOT NULL THEN NULL\n"
        + indent("\n".join(cases))
        + (f"\n  END AS failure\nFROM {STATE_REPEATS_STEP}")
    )
