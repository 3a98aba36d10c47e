"""What a curve is (``CurveKind``) and how a call computes one with either engine.

A curve reuses the metrics' plan up to the score histogram: the same ``input``, ``base``
and ``checks`` CTEs (so the same input rules and messages) and ``score_hist``. Its own
steps (``sql/curves/``) follow, and its final SELECT returns the curve's rows instead of
one row per slice. The polars engine computes the same histogram with the same checks
(``polars_engine.score_hist``) and the curve's polars form from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import duckdb
import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.compose import compose_curve
from sqlmetrics.curves._thin import thin
from sqlmetrics.engines import engine_named, polars_engine
from sqlmetrics.engines.record import OwnTable
from sqlmetrics.errors import InvalidParameterError
from sqlmetrics.sources import source_sql
from sqlmetrics.spec import Metric, MetricCall, Param
from sqlmetrics.sqltext import templates

DROP_INTERMEDIATE = Param(
    "drop_intermediate",
    bool,
    False,
    "keep only the thresholds where the curve turns (scikit-learn's rule)",
)
MAX_POINTS = Param(
    "max_points",
    int,
    None,
    "thin each slice's curve to at most this many points (None: every point)",
    low=2,
    rule_text="must be an integer >= 2 (or None for every point)",
)


@dataclass(frozen=True)
class CurveKind:
    """A curve: its spec (template, what it reads, the score domain its checks need), its
    SQL steps after ``score_hist`` (CTE name, template; the last is ``curve``), its
    parameters, its result columns (``weighted_only`` appear only with a weight), the
    internal column that orders a slice's rows, the x and y columns (thinned by path
    length, plotted), and its polars form ``compute(score_hist, slices, **params)``."""

    spec: Metric
    steps: tuple[tuple[str, str], ...]
    params: tuple[Param, ...]
    columns: tuple[str, ...]
    order: str
    axes: tuple[str, str]
    axis_titles: tuple[str, str]
    compute: Callable[..., pl.LazyFrame]
    weighted_only: tuple[str, ...] = ()
    sql_values: Callable[..., dict[str, str]] = field(default=lambda **params: {})

    @property
    def name(self) -> str:
        return self.spec.name

    def validate(self, params: dict[str, Any]) -> dict[str, Any]:
        """Every parameter checked against its rule, defaults filled in."""
        known = {param.name for param in self.params}
        unknown = sorted(set(params) - known)
        if unknown:
            raise InvalidParameterError(
                f"{self.name}: unknown parameter {unknown[0]!r} (parameters: {', '.join(sorted(known))})"
            )
        return {p.name: p.validate(self.name, params[p.name]) if p.name in params else p.default for p in self.params}

    def result_columns(self, weighted: bool) -> tuple[str, ...]:
        return tuple(c for c in self.columns if weighted or c not in self.weighted_only)


def bind_curve(
    kind: CurveKind, *, label: str, score: str, weight: str | None, by: str | Sequence[str] | None
) -> Binding:
    """The columns bound as for a metric; slice names must differ from the result's."""
    slices = (by,) if isinstance(by, str) else tuple(by or ())
    if len(set(slices)) != len(slices):
        raise InvalidParameterError(f"by lists a column twice: {list(slices)}")
    clashes = sorted(set(slices) & set(kind.result_columns(weight is not None)))
    if clashes:
        raise InvalidParameterError(f"slice column(s) {clashes} clash with {kind.name} columns of the same name")
    return Binding((MetricCall(kind.spec),), {"label": label, "score": score, "weight": weight}, by=slices)


def curve_statement(
    kind: CurveKind, params: dict[str, Any], binding: Binding, source: str, second_sql: str | None = None
) -> str:
    """The one SQL statement computing the curve: the shared steps up to ``score_hist``,
    the curve's steps, thinning when ``max_points`` is set, then its rows in order
    (``second_sql``: a composer's second table, which a curve never reads)."""
    by = ", ".join(binding.slices)
    ctes = {}
    values = {
        "by": by,
        **{name: templates.literal(value) for name, value in params.items() if value is not None},
        **kind.sql_values(**params),
    }
    for name, template in kind.steps:
        ctes[name] = templates.render(template, values, binding.slices)
    columns = kind.result_columns(binding.weight is not None)
    last = "curve"
    if params.get("max_points") is not None:
        x, y = kind.axes
        thin_values = {
            "by": by,
            "x": templates.quote(x),
            "y": templates.quote(y),
            "columns": ", ".join(map(templates.quote, columns)),
            "buckets": templates.literal(params["max_points"] // 2),
        }
        ctes["thinned"] = templates.render("curves/thin.sql", thin_values, binding.slices)
        last = "thinned"
    selected = [f"{s} AS {templates.quote(user)}" for s, user in zip(binding.slices, binding.by)]
    selected += map(templates.quote, columns)
    order = [*(binding.slices if binding.by else ()), kind.order]
    final = (
        f"SELECT {', '.join(selected)}\nFROM {last}\nCROSS JOIN checks\nWHERE checks.failure IS NULL\n"
        f"ORDER BY {templates.ascending(order)}"
    )
    return compose_curve(binding, source, ctes, final)


def compute(
    kind: CurveKind,
    source: Any,
    *,
    label: str,
    score: str,
    weight: str | None,
    by: str | Sequence[str] | None,
    engine: str,
    con: duckdb.DuckDBPyConnection | None,
    **params: Any,
) -> pl.DataFrame:
    """The curve over ``source`` with ``engine``: slice columns, then the curve's."""
    values = kind.validate(params)
    binding = bind_curve(kind, label=label, score=score, weight=weight, by=by)
    table = OwnTable(partial(curve_statement, kind, values), lambda b, data, _: _compute_polars(kind, values, b, data))
    return engine_named(engine, lambda record: record.supports_curves).table(table, binding, source, None, con)


def _compute_polars(kind: CurveKind, params: dict[str, Any], binding: Binding, source: Any) -> pl.DataFrame:
    slices = list(binding.slices)
    hist = polars_engine.score_hist(binding, source)
    max_points = params.pop("max_points", None)
    table = kind.compute(hist, slices, **params)
    if max_points is not None:
        table = thin(table, slices, *kind.axes, max_points=max_points)
    result = table.sort([*slices, kind.order], nulls_last=True).collect()
    columns = kind.result_columns(binding.weight is not None)
    return result.rename(dict(zip(slices, binding.by))).select(*binding.by, *columns)


def sql(
    kind: CurveKind,
    *,
    source: Any,
    label: str,
    score: str,
    weight: str | None,
    by: str | Sequence[str] | None,
    **params: Any,
) -> str:
    """The statement ``compute(..., engine="duckdb")`` runs (sources as in ``sm.to_sql``)."""
    binding = bind_curve(kind, label=label, score=score, weight=weight, by=by)
    return curve_statement(kind, kind.validate(params), binding, source_sql(source))
