"""A state (``sm.state``) computed by the polars engine: the rows of
``compose/state.py``'s statement, the same parts, columns and types, built from the
polars plan: ``base`` keyed as SQL's (score, label, classes) with base's sums in polars
(each family's ``Intermediate.polars_sums``), and each mean over queries' values from
its polars form (``Lists.per_query``; a frame metric's ``queries``), and each kept
spread's from its interval's polars step. The slices' text (``state_slice``) is written
by DuckDB from the distinct slices, with the SQL state's own expression
(``state.slice_text_sql``), so that a slice has one text whichever engine built its state."""

from __future__ import annotations

import dataclasses
from typing import Any

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.compose.intermediates import each_sums, needed
from sqlmetrics.compose.plan import base_sums
from sqlmetrics.compose.rounding import round_scores, spread_sums_polars
from sqlmetrics.compose.state import (
    ALL_ROWS,
    BASE_PART,
    META_PART,
    SLICES_PART,
    Identity,
    alias,
    merging,
    per_query_calls,
    slice_text_sql,
    spread_calls,
    state_columns,
    state_keys,
)
from sqlmetrics.engines import duckdb_engine
from sqlmetrics.engines.polars_engine import plan
from sqlmetrics.engines.polars_engine.forms import Steps
from sqlmetrics.registry import intermediates
from sqlmetrics.running.interrupt import in_a_worker
from sqlmetrics.sources import names_unreadable_files
from sqlmetrics.spec import MetricCall


@names_unreadable_files
@in_a_worker
def state(binding: Binding, source: Any, second: Any, meta: str, identity: Identity) -> pl.DataFrame:
    """The state of ``binding``'s metrics over ``source``; ``meta``: its JSON description,
    ``identity``: the rows it covers (its id given)."""
    binding = dataclasses.replace(binding, distinct_scores=False, ci=None)
    sums = tuple(expr for name in needed(binding) for expr in _polars_sums(binding, name))
    if binding.score_digits is not None:
        sums += tuple(spread_sums_polars())
    rows, base, judged = plan.checked_base(binding, source, second, keys=state_keys(binding), sums=sums)
    steps = Steps(binding, rows, base, judged, None)
    columns = state_columns(binding)
    if binding.score_digits is not None:
        base = _rounded(binding, base)
    kept = base.select(*binding.slices, *(column for column in columns if column in base.columns))
    kept = kept.with_columns(w=pl.when(pl.col("n") > 0).then("w"))  # SQL's sum over no used row: NULL
    parts = [kept.with_columns(state_part=pl.lit(BASE_PART))]
    parts += [steps.queries(call).with_columns(state_part=pl.lit(call.column)) for call in per_query_calls(binding)]
    parts += [_spread(call, steps).with_columns(state_part=pl.lit(call.column)) for call in spread_calls(binding)]
    parts.append(_slices(binding, kept).with_columns(state_part=pl.lit(SLICES_PART)))
    parts.append(pl.DataFrame({"state_part": [META_PART], "state_meta": [meta]}))
    whole = pl.concat(parts, how="diagonal_relaxed")
    identified = pl.col("state_part").is_in([META_PART, SLICES_PART])
    whole = whole.with_columns(
        state_id=pl.when(identified).then(pl.lit(identity.state_id, dtype=pl.String)),
        state_source=pl.when(identified).then(pl.lit(identity.source, dtype=pl.String)),
    )
    slices = dict(zip(binding.slices, binding.by))
    return whole.select(
        "state_part",
        *(pl.col(s).alias(user) for s, user in slices.items()),
        *(_typed(whole, column) for column in columns),
    )


def _rounded(binding: Binding, base: pl.DataFrame) -> pl.DataFrame:
    """``base`` with its scores rounded (``rounding.round_scores``), its rows merged per
    slice and key as ``compose/state.py``'s ``rounded_base_sql`` merges them."""
    keys = [*binding.slices, *state_keys(binding)]
    merged = [getattr(pl.col(alias(aggregate)), merging(aggregate))() for aggregate in base_sums(binding)]
    rounded = base.with_columns(round_scores(base["score"], binding.score_digits))
    return rounded.group_by(keys).agg(merged)


_SLICES_VIEW, _ROW = "sqlmetrics_state_slices", "sqlmetrics_slice_row"


def _slices(binding: Binding, base: pl.DataFrame) -> pl.DataFrame:
    """The slices part: each distinct slice of ``base`` with its text (``state_slice``),
    written by DuckDB as the state statement writes it (joined back by row number: the
    slices keep their polars types)."""
    if not binding.slices:
        return pl.DataFrame({"state_slice": [ALL_ROWS] if base.height else []}, schema={"state_slice": pl.String})
    distinct = base.select(binding.slices).unique().with_row_index(_ROW)
    text = slice_text_sql(list(zip(binding.slices, binding.by)))
    texts = duckdb_engine.run_statement(
        f"SELECT {_ROW}, {text} AS state_slice FROM {_SLICES_VIEW}", {_SLICES_VIEW: distinct}
    )
    return distinct.join(texts, on=_ROW).drop(_ROW)


def _polars_sums(binding: Binding, name: str) -> list[pl.Expr]:
    """The polars forms of step ``name``'s sums of base (for each combination of its
    ``each`` parameters in use, when its sums depend on them: ``each_sums``)."""
    build = intermediates()[name].polars_sums
    if build is None:
        return []
    return each_sums(binding, name, build) if callable(intermediates()[name].base_aggregates) else build()


def _spread(call: MetricCall, steps: Steps) -> pl.DataFrame:
    """A kept spread's rows (``Interval.kept``): per slice, the mean as ``value``, W as
    ``weight``, and ``spread``."""
    spreads = call.spec.interval.kept.polars(call, steps.used_rows, steps.slices)
    return spreads.select(*steps.slices, value="mean", weight="total", spread="spread").collect(engine="streaming")


def _typed(whole: pl.DataFrame, column: str) -> pl.Expr:
    """``column`` of the concatenated parts as SQL types it: counts Int64, sums, scores and
    labels Float64, ``state_meta`` text; NULL where no part has it (a key of the user's type)."""
    if column not in whole.columns:
        return pl.lit(None).alias(column)
    if column in ("n_all", "n") or column.startswith("n_"):
        return pl.col(column).cast(pl.Int64)
    if column == "state_meta":
        return pl.col(column).cast(pl.String)
    if whole.schema[column].is_numeric() and column not in ("true_class", "predicted_class", "query"):
        return pl.col(column).cast(pl.Float64)
    return pl.col(column)
