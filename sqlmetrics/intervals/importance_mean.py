"""The interval of an off-policy estimator that is a weighted mean of a value of each row
(ips, clipped_ips, dm, dr, switch_dr, dr_os, and the diagnostic mean_weight: Σ k·x / Σ k,
x the row's weighted reward, corrected model value or importance weight): the standard
error of that mean, se² = Σ k·(x − m)² / (W·(W − 1)), weights counting as frequencies,
and the normal interval. It is ``residual_mean``'s
computation (its templates, its state's kept spread, its clustered form) over a row value
written in SQL over the off-policy roles (``propensity``, ``target_propensity``,
``reward_model``, ``target_reward_model``), ``label`` and the call's parameters
(``{{ cap }}``, ``{{ shrinkage }}``): the polars forms read the same SQL, the parameters
filled in as literals first. For ips it is vw-estimators' Gaussian interval."""

from __future__ import annotations

import dataclasses

from sqlmetrics.intervals.residual_mean import SPREAD_STEP, residual_mean_polars, residual_spread_polars
from sqlmetrics.intervals.row_mean import clustered_mean_polars
from sqlmetrics.spec import ClusteredInterval, Interval, KeptSpread, MetricCall
from sqlmetrics.sqltext import templates


def importance_mean(value: str) -> Interval:
    """The interval of the weighted mean of ``value`` (SQL over ``input``'s columns and
    the call's parameters) over the used rows."""
    return Interval(
        "importance_mean",
        "intervals/residual_mean.sql",
        "mean over rows",
        comparison="mean over rows",
        values=(("value", value), ("where", "TRUE"), ("slope", "1")),
        steps=((SPREAD_STEP, "intervals/residual_spread.sql"),),
        polars=lambda call, rows, slices: residual_mean_polars(_filled(call), rows, slices),
        clustered=ClusteredInterval(
            "intervals/clustered_mean.sql",
            lambda call, rows, slices: clustered_mean_polars(_filled(call), rows, slices),
        ),
        kept=KeptSpread(
            SPREAD_STEP,
            "intervals/merged_residual_spread.sql",
            lambda call, rows, slices: residual_spread_polars(_filled(call), rows, slices),
        ),
    )


def _filled(call: MetricCall) -> MetricCall:
    """``call`` with its interval's SQL values holding its parameters as literals (what
    the SQL form renders them with), for polars' SQL expression parser."""
    params = {name: templates.literal(value) for name, value in call.params}
    interval = call.spec.interval
    values = tuple((key, templates.fill(sql, params)) for key, sql in interval.values)
    spec = dataclasses.replace(call.spec, interval=dataclasses.replace(interval, values=values))
    return dataclasses.replace(call, spec=spec)


__all__ = ["importance_mean"]
