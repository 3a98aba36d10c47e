"""An interval's bounds from its metric's value and spread: value ∓ q·se, q the
quantile of the level (``quantiles``), clipped to the finite ends of the metric's range,
in SQL (over the steps ``point`` and ``spread``) and in polars (over ``_se``, ``_df``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from sqlmetrics.intervals.choice import interval_of
from sqlmetrics.intervals.quantiles import double, expansion_sql, multiplier_expr, normal_quantile
from sqlmetrics.spec import MetricCall


def margin_sql(call: MetricCall, slices: tuple[str, ...], level: float) -> str:
    """A query over the step ``spread`` (the slices, ``se``, ``df``): per slice ``se`` and
    ``q``, the quantile of ``level`` (t from the step ``t_quantiles`` up to
    ``T_TABLE_DF`` degrees of freedom, else its expansion; z for the normal, and for a
    Student's t interval whose spread gives no df: its form clustered by a unit)."""
    keys = ", ".join(f"s.{column}" for column in slices)
    z = double(normal_quantile(level))
    if not interval_of(call).student:
        return f"SELECT {keys}, s.se, s.df, {z} AS q FROM spread AS s"
    q = f"CASE WHEN s.df IS NULL THEN {z} ELSE COALESCE(t.q, {expansion_sql(level, 'CAST(s.df AS DOUBLE)')}) END"
    return f"SELECT {keys}, s.se, s.df, {q} AS q\nFROM spread AS s\nLEFT JOIN t_quantiles AS t ON t.df = s.df"


def bounds_sql(call: MetricCall, level: float) -> list[str]:
    """``<name>_lo`` and ``<name>_hi`` over ``point.<name>`` and the margin's ``se``, ``q``
    (clipped to the metric's range, ``clip_range``)."""
    name, (low, high) = call.base_name, clip_range(call)
    columns = []
    for side, sign in (("lo", "-"), ("hi", "+")):
        bound = f"point.{name} {sign} margin.q * margin.se"
        if high is not None:
            bound = f"LEAST({double(high)}, {bound})"
        if low is not None:
            bound = f"GREATEST({double(low)}, {bound})"
        if low is not None or high is not None:  # GREATEST and LEAST skip NULLs in some dialects
            bound = f"CASE WHEN margin.se IS NOT NULL THEN {bound} END"
        columns.append(f"{bound} AS {name}_{side}")
    return columns


def clip_range(call: MetricCall) -> tuple[float | None, float | None]:
    """The finite ends of the metric's range (``Metric.range``), which its interval's
    bounds are clipped to: an NDCG interval never leaves [0, 1], a logloss interval never
    goes below 0."""
    ends = call.spec.range or (None, None)
    return tuple(end if end is not None and math.isfinite(end) else None for end in ends)


def bounds_polars(result: pl.DataFrame, calls: Sequence[MetricCall], level: float) -> pl.DataFrame:
    """``<column>_lo`` and ``<column>_hi`` from each call's value, ``_se`` and ``_df``
    columns of ``result``, by bounds_sql's arithmetic."""
    columns = []
    for call in calls:
        name, (low, high) = call.column, clip_range(call)
        value, se = pl.col(name), pl.col(f"{name}_se")
        multiplier = multiplier_expr(level, pl.col(f"{name}_df") if interval_of(call).student else None)
        for side, sign in (("lo", -1), ("hi", 1)):
            bound = value + multiplier * se if sign > 0 else value - multiplier * se
            if low is not None or high is not None:
                bound = pl.when(se.is_not_null()).then(bound.clip(low, high))
            columns.append(bound.alias(f"{name}_{side}"))
    return result.with_columns(columns)
