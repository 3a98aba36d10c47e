"""Which interval a call gets: its spec's analytic one, or the bootstrap's.

The intervals sit below the metrics (each metric's spec names its method's declaration
here), so nothing here reads the registry: a refusal that lists the metrics having the
interval asked for reads them from ``registered``, the registry's metrics, which the
caller passes (``api.prepare``: ``registry()``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from sqlmetrics.errors import InvalidParameterError, Keyword, Value
from sqlmetrics.spec import Interval, Metric, MetricCall, PairedInterval

CI_METHODS = ("auto", "analytic", "bootstrap")


def check_level(ci: object) -> None:
    if isinstance(ci, bool) or not isinstance(ci, int | float) or not 0 < ci < 1:
        raise InvalidParameterError(
            Keyword("ci"), f" must be a confidence level between 0 and 1 (e.g. 0.95), got {ci!r}"
        )


def resampled(
    ci: float | None,
    ci_method: str,
    calls: Sequence[MetricCall],
    unit: str | None,
    paired: bool = False,
    *,
    registered: Mapping[str, Metric],
) -> list[MetricCall]:
    """The calls whose interval is the bootstrap's (``sqlmetrics.binding.bootstrap``): all of them
    for ``"bootstrap"``, for ``"auto"`` those without an analytic interval (with a
    ``unit``, without one clustered by it: ``Interval.clustered``); none for
    ``"analytic"``. Raise for a level outside (0, 1), an unknown method, an analytic
    interval asked for a metric without one, or a bootstrap of a metric that takes no
    weights. ``paired``: the intervals of the difference of two paired scores
    (``Interval.paired``; clustered by a unit, ``Interval.clustered``) rather than of a
    metric. ``registered``: every metric by name (``registry()``), whose intervals a
    refusal lists as the ones that exist."""
    if ci is None:
        return []
    check_level(ci)
    if ci_method not in CI_METHODS:
        raise InvalidParameterError(
            Keyword("ci_method"), f" must be one of {', '.join(map(repr, CI_METHODS))}, got {ci_method!r}"
        )
    without = [call for call in calls if (paired_of(call) if paired else interval_of(call)) is None]
    if ci_method == "analytic" and unit is not None:
        unclustered = [call.column for call in calls if not clusters(call)]
        if unclustered:
            having = ", ".join(name for name, spec in registered.items() if spec.interval and spec.interval.clustered)
            raise InvalidParameterError(
                Keyword("ci_unit", unit), f": no analytic interval clustered by it for {', '.join(unclustered)}"
                f"{' (a paired comparison)' if paired else ''}: clustered intervals exist for {having}; ",
                Keyword("ci_method", "auto"), " or ", Value("bootstrap"), " resamples the others by unit",
            )  # fmt: skip
        return []
    if ci_method == "analytic":
        if without and paired:
            having = ", ".join(name for name, spec in registered.items() if spec.interval and spec.interval.paired)
            raise InvalidParameterError(
                f"no analytic paired comparison for {', '.join(call.column for call in without)}: they exist for "
                f"{having}; ", Keyword("ci_method", "auto"), " or ", Value("bootstrap"), " resamples the others",
            )  # fmt: skip
        if without:
            names = ", ".join(repr(c) if c.kwargs.get("average") == "micro" else c.spec.name for c in without)
            having = ", ".join(name for name, spec in registered.items() if spec.interval is not None)
            raise InvalidParameterError(
                f"no analytic interval for {names}: intervals exist for {having} (macro averages); ",
                Keyword("ci_method", "bootstrap", python="sm.evaluate's ci_method='bootstrap'"), " (or ",
                Value("auto"), ") resamples the others",
            )  # fmt: skip
        return []
    if ci_method == "bootstrap":
        chosen = list(calls)
    elif unit is not None:
        chosen = [call for call in calls if not clusters(call)]
    else:
        chosen = without
    unweighted = [call.column for call in chosen if not call.spec.weighted]
    if unweighted:
        raise InvalidParameterError(
            f"no bootstrap for {', '.join(unweighted)}: it resamples by weighting rows, which these metrics do not "
            "take; their analytic interval (", Keyword("ci_method", "analytic"), ", without ", Keyword("ci_unit"),
            ") is the t over queries",
        )  # fmt: skip
    return chosen


def interval_of(call: MetricCall) -> Interval | None:
    """The call's analytic interval, if it has one (a micro average only where the
    interval says it serves it: the multi-class metrics', not hit_rate's)."""
    interval = call.spec.interval
    if interval is None or (call.kwargs.get("average") == "micro" and not interval.micro):
        return None
    return interval


def clusters(call: MetricCall) -> bool:
    """Whether the call's analytic interval holds with the rows clustered by column
    ``unit``: an interval with a clustered form (of a paired difference too: the
    difference of each unit's parts under the two scores), or a mean over queries whose
    queries are the units (its t over queries already takes them as independent)."""
    interval = interval_of(call)
    return interval is not None and interval.clustered is not None


def paired_of(call: MetricCall) -> PairedInterval | None:
    """The spread of the call's difference under two paired scores, if it has one."""
    interval = interval_of(call)
    return None if interval is None else interval.paired


METHOD_SCHEMA = {
    "metric": pl.String,
    "method": pl.String,
    "interval": pl.String,
    "level": pl.Float64,
    "resamples": pl.Int64,
    "seed": pl.Int64,
    "unit": pl.String,
}


def described(
    calls: Sequence[MetricCall],
    ci: float,
    ci_method: str,
    unit: str | None,
    resamples: int,
    seed: int,
    query: str | None = None,
    *,
    registered: Mapping[str, Metric],
) -> pl.DataFrame:
    """One row per call: which method gives its interval (``Interval.method`` or the
    bootstrap), the interval's kind (normal, Student's t, percentile), the level, and for
    the bootstrap its resamples, seed and unit (``unit``: ``"row"`` without ``ci_unit``;
    the means over queries take the query as theirs; an analytic interval clustered by
    ``ci_unit`` names it). ``registered`` as ``resampled`` reads it."""
    resampled_columns = {call.column for call in resampled(ci, ci_method, calls, unit, registered=registered)}
    rows = []
    for call in calls:
        if call.column in resampled_columns:
            rows.append((call.column, "bootstrap", "percentile", ci, resamples, seed, unit or "row"))
            continue
        interval = interval_of(call)
        method, kind = interval.method, "Student's t" if interval.student else "normal"
        clustered = interval.clustered
        if unit is not None and clustered is not None and clustered.takes(unit, query):
            method, kind = clustered.method or method, "normal"
        within = unit if unit is not None else "query" if interval.name == "query_mean" else "row"
        rows.append((call.column, method, kind, ci, None, None, within))
    return pl.DataFrame(rows, schema=METHOD_SCHEMA, orient="row")
