"""A call whose bootstrap will be long says so before it starts, and shows its progress
on a terminal.

A bootstrap evaluates every resampled metric on every row once per resample
(``sqlmetrics.binding.bootstrap``), so its cost grows as rows × resamples. The rows are read
from evidence that reads no row (``source_evidence.source_rows``: the Parquet footers, a
frame's height); without it (a table in a connection, a LazyFrame, Spark) there is no
estimate and nothing is said. Above ``LONG_BOOTSTRAP`` row-replicates (measured: 200
resamples of logloss and calibration by user over 2.14M rows, 4.3e8, took 28 s on two
cores against 1.2 s without intervals; docs/intervals.md) the call warns
(``LongBootstrapWarning``: the rows × resamples, each resampled metric and why, how to
make it cheaper), and when stderr is a terminal shows a progress line while it runs
(DuckDB's share done; polars reports none, and the line says so). Nothing is printed
when stderr is not a terminal but the warning, which Python's warning filters govern.
"""

from __future__ import annotations

import os
import sys
import warnings
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from sqlmetrics import intervals
from sqlmetrics.binding import Binding
from sqlmetrics.engines.record import Engine
from sqlmetrics.engines.source_evidence import source_rows
from sqlmetrics.errors import LongBootstrapWarning
from sqlmetrics.intervals.choice import clusters
from sqlmetrics.running import progress
from sqlmetrics.spec import MetricCall

# rows × resamples above which a bootstrap says it will be long: 500,000 rows × 200 resamples
LONG_BOOTSTRAP = 10**8
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # sqlmetrics/


def announced(binding: Binding, source: Any, engine: Engine) -> AbstractContextManager:
    """Before ``binding``'s bootstrap over ``source`` runs: when it will be long, warn, and
    return the progress line to show while it runs on ``engine`` (on a terminal: its share
    done when the engine reports it, ``Engine.reports_progress``); else nothing."""
    rows = source_rows(source) if binding.bootstrap is not None else None
    if rows is None or rows * binding.bootstrap.resamples <= LONG_BOOTSTRAP:
        return nullcontext()
    resamples = binding.bootstrap.resamples
    calls = [call for call in binding.calls if call.column in binding.bootstrap.columns]
    warnings.warn(
        LongBootstrapWarning(_message(binding, calls, rows), rows, resamples, tuple(call.column for call in calls)),
        stacklevel=_first_frame_outside_the_package(),
    )
    told = "" if engine.reports_progress else f" ({engine.name} reports no share done)"
    return progress.on_terminal(f"bootstrap of {rows:,} rows × {resamples:,} resamples{told}")


def _message(binding: Binding, calls: list[MetricCall], rows: int) -> str:
    resamples = binding.bootstrap.resamples
    metrics = ", ".join(f"{call.column} ({_why(binding, call)})" for call in calls)
    return (
        f"a long bootstrap: {rows:,} rows × {resamples:,} resamples = {rows * resamples:,} row-replicates (more "
        f"than {LONG_BOOTSTRAP:,}), each of {metrics} evaluated on every row once per resample. To make it "
        f"cheaper: fewer resamples (each costs a pass over the rows; a few hundred give a 95% interval), or an "
        f"analytic interval where the metric has one (ci_method 'auto' or 'analytic'; docs/intervals.md lists them, "
        f"and those clustered by a ci_unit)"
    )


def _why(binding: Binding, call: MetricCall) -> str:
    """Why the call is resampled: it has no analytic interval (of the difference, when
    paired; clustered by the bootstrap's unit, with one: ``choice.clusters``), none
    clustered by that unit, or the bootstrap was asked for."""
    analytic = intervals.paired_of(call) if binding.paired_scores else intervals.interval_of(call)
    unit = binding.bootstrap.unit
    clustered = unit is not None and clusters(call)
    if analytic is None and not clustered:
        return "no analytic interval"
    if unit is not None and not clustered:
        return f"ci_unit {unit!r}: it has no analytic interval clustered by a unit"
    return "ci_method 'bootstrap'; it has an analytic interval"


def _first_frame_outside_the_package() -> int:
    """The ``stacklevel`` that makes the warning name the caller's line, not sqlmetrics'."""
    level, frame = 1, sys._getframe(1)  # the caller of this function: warn's own frame
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
