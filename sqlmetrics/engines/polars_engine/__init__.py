"""The polars engine: the plan of the composed SQL, computed with the metrics' polars
expressions over LazyFrames.

``plan`` builds the input (the source under canonical names) and ``base``, its one
aggregation, and checks the input rules on them, as ``compose/plan.py`` and
``rules/sql.py`` do in SQL; ``forms`` computes the metrics, one runner per polars
form (``forms.RUNNERS``); here each entry point joins their values by slice and adds the
intervals (``sqlmetrics.intervals``).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import polars as pl

from sqlmetrics import intervals
from sqlmetrics.binding import Binding
from sqlmetrics.engines.polars_engine import plan
from sqlmetrics.engines.polars_engine.forms import Steps, runs
from sqlmetrics.engines.record import Engine, OwnTable
from sqlmetrics.engines.source_evidence import planned
from sqlmetrics.metrics.multiclass import per_class_values
from sqlmetrics.running.interrupt import in_a_worker
from sqlmetrics.sources import names_unreadable_files


@names_unreadable_files
@in_a_worker
def run(binding: Binding, source: Any, second: Any = None) -> pl.DataFrame:
    """Every metric of ``binding`` over ``source`` (and ``second``: the judgments of a
    run, or long class scores): ``base``, the forms that are a pass over the rows and the
    ranking lists' rows in one pass, the rules checked, then the other forms' runners over
    their calls, then the row counts and the intervals."""
    data = plan.read_input(binding, source, second)
    first = Steps(binding, data.rows, None, data.judged, None)
    row_passes = [frame for runner, calls in runs(binding, True) for frame in runner(calls, first)]
    also = [*row_passes, first.list_rows] if first.ranks else row_passes  # the lists' rows last
    base, values = plan.collect_checked(data, also)
    list_rows = values.pop().lazy() if first.ranks else None
    hist = plan.family_steps(binding, data.rows, data.judged, base).get("class_score_hist")
    steps = dataclasses.replace(first, base=base, class_hist=hist, collected_list_rows=list_rows)
    values += [frame for runner, calls in runs(binding, False) for frame in runner(calls, steps)]
    slices = steps.slices
    results = plan.row_counts(binding, base)
    for frame in values:
        results = results.join(frame, on=slices, how="left", nulls_equal=True)
    if binding.analytic_calls:
        results = _with_intervals(binding, results, steps, base, slices)

    counts = [f"{call.column}_{out}" for call in binding.calls for out in call.spec.outputs]
    results = results.with_columns(pl.col(counts).fill_null(0))
    if binding.by:
        results = results.sort(slices, nulls_last=True)
    return results.rename(dict(zip(slices, binding.by))).select(binding.output_columns)


def evaluated(binding: Binding, source: Any, second: Any = None, *, con: Any = None, spark: Any = None) -> pl.DataFrame:
    """The engine's ``run`` (``record.Run``): ``run`` of ``binding``, planned with what the
    source tells without a scan (``source_evidence.planned``); ``con`` and ``spark`` unread."""
    return run(planned(binding, source), source, second)


def own_table(table: OwnTable, binding: Binding, source: Any, second: Any, con: Any) -> pl.DataFrame:
    """A table of its own (``record.OwnTable``): its polars form (``con`` unread)."""
    return table.polars(binding, source, second)


ENGINE = Engine.in_process("polars", evaluated, own_table)


@names_unreadable_files
@in_a_worker
def confusion_matrix(binding: Binding, source: Any) -> pl.DataFrame:
    """``sm.confusion_matrix``: the class_confusion of base, under the user's names."""
    _, base, _ = plan.checked_base(binding, source)
    slices = list(binding.slices)
    matrix = plan.build("class_confusion", base.lazy(), slices).rename({**binding.class_roles, "w": "weight"})
    classes = list(binding.class_roles.values())
    columns = [*binding.by, *classes, "n", *(["weight"] if binding.weight is not None else [])]
    return _user_table(binding, matrix.collect(), classes).select(columns)


@names_unreadable_files
@in_a_worker
def per_class(binding: Binding, source: Any) -> pl.DataFrame:
    """``sm.per_class``: per slice and class, the support and each metric's per-class value
    (its module's column of ``per_class_values``, at its β)."""
    _, base, _ = plan.checked_base(binding, source)
    slices = list(binding.slices)
    counts = plan.build("class_counts", plan.build("class_confusion", base.lazy(), slices), slices).collect().lazy()
    table = counts.select(*slices, "class", "support")
    for call in binding.calls:
        scores = per_class_values(counts, call.kwargs.get("beta", 1.0))
        value = scores.select(*slices, "class", pl.col(call.spec.per_class).alias(call.column))
        table = table.join(value, on=[*slices, "class"], how="left", nulls_equal=True)
    return _user_table(binding, table.collect(), ["class"]).select(
        *binding.by, "class", "support", *(c.column for c in binding.calls)
    )


@names_unreadable_files
@in_a_worker
def score_hist(binding: Binding, source: Any) -> pl.DataFrame:
    """The score histogram of ``source`` once the rules of ``binding``'s calls hold: one
    row per slice and distinct score with n (used rows), w, w_pos, w_neg. Curves start
    from it."""
    _, base, _ = plan.checked_base(binding, source, keys=("score",))
    return plan.build("score_hist", base, list(binding.slices))


def _user_table(binding: Binding, table: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """A table of classes sorted by slice and ``keys``, its slices under the user's names."""
    slices = list(binding.slices) if binding.by else []
    return table.sort([*slices, *keys], nulls_last=True).rename(dict(zip(slices, binding.by)))


def _rows_histogram(rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """score_hist of the used rows, for the intervals when ``base`` is not keyed by score:
    each slice's positive and negative weight per score."""
    w, positive = pl.col("w"), pl.col("label") == 1
    return rows.group_by([*slices, "score"]).agg(w_pos=w.filter(positive).sum(), w_neg=w.filter(~positive).sum())


def _with_intervals(
    binding: Binding, results: pl.DataFrame, steps: Steps, base: pl.DataFrame, slices: list[str]
) -> pl.DataFrame:
    """``results`` with every call's ``_lo`` and ``_hi`` (``sqlmetrics.intervals``): the
    query-level metrics brought their ``_se`` and ``_df`` (but clustered by a unit other
    than the query: from their queries and units here); the others' spread is taken
    here from the score histogram (auc's DeLong, the row means: from ``base`` when it is
    keyed by score, else from the used rows, once) or from the used rows (proportions,
    regression errors)."""
    used_rows = steps.used_rows

    @functools.cache
    def histogram() -> pl.LazyFrame:
        if {"score", "w_pos"} <= set(base.columns):
            return plan.build("score_hist", base, slices).select(*slices, "score", "w_pos", "w_neg").lazy()
        return _rows_histogram(used_rows, slices).collect(engine="streaming").lazy()

    for call in binding.analytic_calls:
        pair = binding.pair_slice if binding.paired_scores else None
        if binding.clustered(call) is not None:
            parts = steps.queries_by_unit(call) if binding.clustered(call).whole_queries else used_rows
            spread = intervals.clustered_spread_polars(call, parts, slices, pair)
        elif pair is not None:
            spread = intervals.paired_row_spread_polars(call, used_rows, slices, pair)
        else:
            spread = intervals.row_spread_polars(call, used_rows, histogram, slices)
        if spread is not None:
            spread = spread.collect(engine="streaming").rename({"se": f"{call.column}_se", "df": f"{call.column}_df"})
            results = results.join(spread, on=slices, how="left", nulls_equal=True)
    return intervals.bounds_polars(results, binding.analytic_calls, binding.ci)
