"""A metric's step with its confidence interval (``sqlmetrics.intervals``): the step's
final SELECT becomes the step ``point``, the interval's template (``sql/intervals/``,
reading the metric's own steps or the shared ones) the step ``spread``, and the step
returns the point with ``<name>_lo`` and ``<name>_hi`` = value ∓ q·se (and ``_se``,
``_df``)."""

from __future__ import annotations

from sqlmetrics import intervals
from sqlmetrics.binding import Binding
from sqlmetrics.compose.statement import indent
from sqlmetrics.spec import MetricCall
from sqlmetrics.sqltext import templates


def t_quantiles_needed(binding: Binding) -> bool:
    return any(intervals.interval_of(call).student for call in binding.analytic_calls)


def with_spread(step: str, call: MetricCall, binding: Binding, values: dict[str, str]) -> str:
    """``step`` (the metric's rendered template, with ``values``) giving its interval too."""
    slices, name = binding.slices, call.base_name
    head, final = templates.split_final_select(step)
    spread = _spread_sql(call, binding, values)
    steps = f"point AS (\n{indent(final)}\n),\nspread AS (\n{indent(spread)}\n)"
    opened = f"{head.rstrip()},\n{steps}" if opens_with_steps(head) else f"{head}WITH {steps}"
    point = [f"point.{column}" for column in (*slices, name, *(f"{name}_{o}" for o in call.spec.outputs))]
    spread_columns = [f"margin.se AS {name}_se", f"margin.df AS {name}_df"]
    columns = ", ".join([*point, *intervals.bounds_sql(call, binding.ci), *spread_columns])
    margin = indent(intervals.margin_sql(call, slices, binding.ci), "    ")
    return (
        f"{opened}\nSELECT {columns}\nFROM point\n"
        f"LEFT JOIN (\n{margin}\n) AS margin ON {templates.same_slice(slices, 'point', 'margin')}"
    )


def opens_with_steps(head: str) -> bool:
    """Whether a step's text before its final SELECT (``templates.split_final_select``)
    holds WITH steps, its last code closing one: its comments aside, so that a comment
    line ending in ")" (``-- Σ w·r / n (obp)``) is not read as a step."""
    code = "\n".join(line.split("--", 1)[0] for line in head.splitlines())
    return code.strip(" \n").endswith(")")


def _spread_sql(call: MetricCall, binding: Binding, values: dict[str, str]) -> str:
    """The step ``spread``: the interval's template over the metric's steps, its units'
    parts summed by clustered.sql when clustered by a unit (``Binding.clustered``; both
    read the interval's ``steps`` as subqueries), or for two paired scores the spread of
    their difference (``Interval.paired``), whose slice ``pair_slice`` says which score
    a row is evaluated with; clustered, the units' parts of the difference
    (``clustered_paired.sql``)."""
    interval, slices = intervals.interval_of(call), binding.slices
    filled = {key: templates.fill(sql, values) for key, sql in interval.values}
    filled |= {key: indent(templates.render(step, values | filled, slices), " " * 4) for key, step in interval.steps}
    clustered, pair = binding.clustered(call), binding.pair_slice if binding.paired_scores else None
    if clustered is not None:
        influences = templates.render(clustered.template, values | filled, slices)
        if pair is not None:  # each unit's part of the difference: the second's parts less the first's
            on_second = ", ".join(f"2 AS {s}" if s == pair else s for s in slices)
            signed = {"influences": indent(influences), "on_second": on_second, "pair": pair}
            influences = templates.render("intervals/clustered_paired.sql", signed, slices)
        return templates.render("intervals/clustered.sql", values | {"influences": indent(influences, " " * 8)}, slices)
    if pair is None:
        return templates.render(interval.template, values | filled, slices)
    paired = interval.paired
    groups = tuple(s for s in slices if s != pair)
    # relations s and f of the same slice but for the pair's (the rows' and the metric's steps')
    same_pair = templates.same_slice(groups, "s", "f") or "TRUE"
    if paired.over_rows:  # the rows have no pair slice
        rows = groups or templates.CONSTANT_SLICES
        over_rows = {"by": ", ".join(rows), "pair": pair, "same_pair": same_pair}
        return templates.render(paired.template, values | filled | over_rows, rows)
    return templates.render(paired.template, values | filled | {"pair": pair, "same_pair": same_pair}, slices)
