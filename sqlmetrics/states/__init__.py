"""Roll-ups: ``state`` keeps what a call's metrics need of a source (per day, file or
worker), ``rollup`` computes the metrics of the union of the parts from their states, for
any coarser slicing, without reading a row again. The statements: ``compose/state.py``
and ``compose/rollup.py``; the format: docs/guide.md, "Roll-ups"."""

from __future__ import annotations

import dataclasses
import json
import os
import uuid
from collections.abc import Sequence
from typing import Any

import polars as pl

from sqlmetrics import api
from sqlmetrics.api import ClassScores, Metrics
from sqlmetrics.binding import Binding
from sqlmetrics.compose.rollup import compose_rollup, rollup_binding
from sqlmetrics.compose.rounding import check_score_digits
from sqlmetrics.compose.state import (
    META_PART,
    Identity,
    check_mergeable,
    compose_state,
    meta_text,
    source_identity,
    state_columns,
)
from sqlmetrics.engines import duckdb_engine, engine_named
from sqlmetrics.engines.polars_engine.state import state as polars_state
from sqlmetrics.engines.record import OwnTable
from sqlmetrics.errors import InvalidParameterError
from sqlmetrics.request import Request
from sqlmetrics.states.checks import ORIGIN, read_states, state_files

__all__ = ["common_meta", "is_state", "read_states", "rolled_up", "rollup", "rollup_binding", "state"]

# What a refusal of an engine without states adds.
_STATE_HINT = " (for a warehouse, sm.to_sql(..., state=True) writes the statement)"
_ROLLUP_VIEW = "sqlmetrics_states"


def state(
    source: Any,
    metrics: Metrics,
    *,
    # <roles>: written by `python -m sqlmetrics.docs --write`
    label: str = "label",
    score: str | None = None,
    prediction: str | None = None,
    query: str | None = None,
    item: str | None = None,
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    judgments: Any = None,
    class_scores: ClassScores | None = None,
    propensity: str | None = None,
    target_propensity: str | None = None,
    reward_model: str | None = None,
    target_reward_model: str | None = None,
    # </roles>
    engine: str = "duckdb",
    con: Any = None,
    score_digits: int | None = None,
) -> pl.DataFrame:
    """What ``metrics`` need of ``source`` to be computed again, exactly, over the union of
    this source with others (``rollup``): a polars DataFrame, the state, one long table
    with a ``state_part`` column, the slice columns of ``by``, and per part:

    * ``base``: per slice, distinct score, label and class (as the metrics read them),
      the rows (``n_all``, ``n`` used), their weight ``w`` and the sums the metrics read
      (the regression errors', ...): every metric of sums, confusion counts or the score
      histogram (auc, average_precision, logloss, f1, calibration, mae, the multi-class
      metrics, ...) is computed from them;
    * a mean over queries' column (``gauc``, ``ndcg_at_10``, ...): per slice and
      ``query``, the query's ``value`` (NULL: left out) and its ``weight``;
    * a regression mean's column (``mae``, ``rmse``, ...): per slice, the mean ``value``
      of what its interval reads of each row, their ``weight`` and ``spread``
      Σ w·(x − mean)², which roll-ups merge into the union's interval;
    * ``slices``: a row per slice, its values as text in ``state_slice``;
    * ``meta``: the call (format, version, metrics and their parameters, columns, slices)
      as JSON in ``state_meta``.

    The ``meta`` and ``slices`` rows say which rows the state covers: ``state_id``, a
    random id made now, and ``state_source``, the source (a path made absolute, a table
    as named; None for a frame). ``rollup`` refuses the same rows merged twice.

    The arguments are ``evaluate``'s (``engine``: ``"duckdb"`` or ``"polars"``, the same
    rows); intervals are asked of ``rollup``. Write it with ``write_parquet`` or into a
    table: ``rollup`` reads it back. Metrics that read the rows themselves
    (``median_absolute_error``, ``r2``, the one-vs-rest metrics) are refused.

    ``score_digits=d`` (an integer from 1 to 15; None, the default: exact) rounds every
    score half up to d decimals before grouping, q = FLOOR(s·10^d + 0.5) / 10^d, alike on
    both engines (``sqlmetrics/compose/rounding.py``): base keeps a row per rounded score and label,
    with the least and greatest score of its rows (``score_min``, ``score_max``), and the
    meta records d. Every roll-up of such states reports next to each metric that
    rounding can change ``<column>_max_error``, a certified bound on the distance to the
    metric of the rows: each such metric but average_precision is monotone in every row's score, so its value
    over the rows lies between its values with every positive, and every negative, at the
    least or greatest score of its rounded bin (four corners; for auc the bound is at most
    Σ_b w⁺_b·w⁻_b / (2·W⁺·W⁻) over the bins, the pairs that rounding tied, each moved by
    at most ½; derivation: ``compose/rounding_bound.py``). It is 0 when rounding moved no score.
    label_mean, gauc and the ranking metrics stay exact (gauc's per-query values are
    computed before rounding); average_precision, not monotone where scores tie, is
    bounded per rounded bin (``sql/rounding/average_precision.sql``); calls without a
    score histogram are refused with ``score_digits``.

    >>> import polars as pl, sqlmetrics as sm
    >>> day = pl.DataFrame({"click": [0, 1, 1, 0], "pctr": [0.2, 0.9, 0.4, 0.4]})
    >>> # base: one row per distinct (score, label): (0.2, 0), (0.9, 1), (0.4, 1), (0.4, 0)
    >>> sm.state(day, ["auc", "logloss"], label="click", score="pctr").filter(state_part="base").height
    4
    >>> # rounded to 1 decimal: 0.4 once per label, 0.9 (the 1), 0.2 (the 0)
    >>> sm.state(day, ["auc"], label="click", score="pctr", score_digits=1).filter(state_part="base").height
    4
    >>> days = [day, day.with_columns(pctr=pl.col("pctr") + 0.04)]
    >>> states = [sm.state(d, ["auc"], label="click", score="pctr", score_digits=1) for d in days]
    >>> # 0.4 and 0.44 both round to 0.4: its 2 x 2 pairs count ½ each (4 of the 16 pairs);
    >>> # over the rows one wins, one loses, two tie: the rows' auc is 0.875 too
    >>> sm.rollup(states).select("auc", "auc_max_error").row(0)
    (0.875, 0.125)
    """
    request = Request.of(locals())
    binding, second = api.prepare(metrics, request)
    check_mergeable(binding)
    check_score_digits(score_digits, binding)
    binding = dataclasses.replace(binding, score_digits=score_digits)
    clashes = sorted(set(binding.by) & {"state_part", ORIGIN, *state_columns(binding)})
    if clashes:
        raise InvalidParameterError(f"slice column(s) {clashes} clash with the state's columns of the same name")
    meta, identity = meta_text(binding), Identity(str(uuid.uuid4()), source_identity(source))
    table = OwnTable(
        lambda b, source_sql, second_sql: compose_state(b, source_sql, second_sql, "duckdb", meta, identity),
        lambda b, data, second_data: polars_state(b, data, second_data, meta, identity),
    )
    runner = engine_named(engine, lambda record: record.supports_states, _STATE_HINT)
    return runner.table(table, binding, source, second, con)


def rollup(
    states: Any,
    *,
    by: str | Sequence[str] | None = None,
    metrics: Metrics | None = None,
    ci: float | None = None,
) -> pl.DataFrame:
    """The metrics of the union of the parts whose ``states`` (``state``'s frames: a polars
    DataFrame or LazyFrame, a Parquet path, glob or directory of them, or a list of any of
    these) are given, per slice of ``by`` (any of the states' slice columns, or none):
    exactly the frame ``evaluate`` returns over the union of the parts' rows (to float
    rounding), without reading them. ``metrics``: some of the states' metrics (default:
    all). ``ci`` adds the analytic intervals that the states' sums give (DeLong's, the
    binomial, the delta method's, the means', the t over queries, the regression means'
    from their parts); a bootstrap, which resamples rows, is refused.

    The states must be of the same call (metrics, parameters, columns, slices, format
    version): a difference is refused, naming it. Each is checked when read
    (``states/checks.py``: its file, meta, columns, parts and values), and rows held twice are
    refused, naming both states: one state given twice (its ``state_id`` twice), or two
    states of one source holding the same slice (a job run twice, a folder read again
    after it grew). A mean over queries (gauc, the ranking
    metrics) merges only when each query lies in one state and slice: a query in two is
    refused, naming it (a user seen on two days is two lists only if the query says so).

    >>> import polars as pl, sqlmetrics as sm
    >>> days = pl.DataFrame({"day": [1, 1, 2, 2], "click": [0, 1, 1, 0], "pctr": [0.2, 0.9, 0.4, 0.4]})
    >>> states = [sm.state(days.filter(day=d), ["auc"], label="click", score="pctr", by="day") for d in (1, 2)]
    >>> sm.rollup(states).row(0) == sm.evaluate(days, ["auc"], label="click", score="pctr").row(0)
    True
    """
    frame = read_states(states)
    return rolled_up(frame, rollup_binding(common_meta(frame), by, metrics, ci))


def rolled_up(frame: pl.DataFrame, binding: Binding) -> pl.DataFrame:
    """The roll-up of the states ``frame`` (``read_states``') that ``binding`` asks for
    (``rollup_binding``'s), computed on DuckDB."""
    statement = compose_rollup(binding, _ROLLUP_VIEW)
    result = duckdb_engine.run_statement(statement, {_ROLLUP_VIEW: frame})
    api.check_result(binding, result)
    # the slices as the states hold them (DuckDB gives a zoned timestamp in UTC)
    return result.with_columns(pl.col(column).cast(frame.schema[column]) for column in binding.by)


def is_state(source: Any) -> bool:
    """Whether ``source`` is states rather than rows: a frame, or Parquet files (a path,
    glob or directory: the first file's columns), or a list of them, with the columns
    ``state_part`` and ``state_meta``. What it is not (a table name, no file) is rows."""
    if isinstance(source, (list, tuple)):
        return bool(source) and all(is_state(one) for one in source)
    if isinstance(source, pl.LazyFrame):
        columns = source.collect_schema().names()
    elif isinstance(source, pl.DataFrame):
        columns = source.columns
    elif isinstance(source, (str, os.PathLike)):
        files = [file for file in state_files(source) if os.path.isfile(file)]
        try:
            columns = list(pl.read_parquet_schema(files[0])) if files else []
        except pl.exceptions.PolarsError:  # not Parquet: rows, which evaluate refuses saying how to read them
            return False
    else:
        return False
    return {"state_part", "state_meta"} <= set(columns)


def common_meta(frame: pl.DataFrame) -> dict[str, Any]:
    """The call that the states ``frame`` describe, once ``read_states`` has checked them
    (their meta rows well formed, all of one call)."""
    return json.loads(frame.filter(pl.col("state_part") == META_PART)["state_meta"].first())
