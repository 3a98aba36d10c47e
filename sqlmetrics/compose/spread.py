"""A metric's step with its confidence interval (``sqlmetrics.intervals``): the step's
final SELECT becomes the step ``point``, the interval's template (``sql/intervals/``,
reading the metric's own steps or the shared ones) the step ``spread``, and the step
returns the point with ``<name>_lo`` and ``<name>_hi`` = value ∓ q·se (and ``_se``,
``_df``)."""

from __future__ import annotations

from sqlmetrics import intervals, templates
from sqlmetrics.binding import Binding
from sqlmetrics.compose.statement import indent
from sqlmetrics.spec import MetricCall


def t_quantiles_needed(binding: Binding) -> bool:
    return binding.ci is not None and any(intervals.interval_of(call).student for call in binding.calls)


def with_spread(step: str, call: MetricCall, binding: Binding, values: dict[str, str]) -> str:
    """``step`` (the metric's rendered template, with ``values``) giving its interval too."""
    interval, slices, name = intervals.interval_of(call), binding.slices, call.base_name
    head, final = templates.split_final_select(step)
    filled = {key: templates.fill(sql, values) for key, sql in interval.values}
    spread = templates.render(interval.template, values | filled, slices)
    steps = f"point AS (\n{indent(final)}\n),\nspread AS (\n{indent(spread)}\n)"
    opened = f"{head.rstrip()},\n{steps}" if head.strip(" \n").endswith(")") else f"{head}WITH {steps}"
    point = [f"point.{column}" for column in (*slices, name, *(f"{name}_{o}" for o in call.spec.outputs))]
    spread_columns = [f"margin.se AS {name}_se", f"margin.df AS {name}_df"]
    columns = ", ".join([*point, *intervals.bounds_sql(call, binding.ci), *spread_columns])
    margin = indent(intervals.margin_sql(call, slices, binding.ci), "    ")
    return (
        f"{opened}\nSELECT {columns}\nFROM point\n"
        f"LEFT JOIN (\n{margin}\n) AS margin ON {templates.same_slice(slices, 'point', 'margin')}"
    )
