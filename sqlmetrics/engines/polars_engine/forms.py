"""The polars engine's metrics: one runner per polars form (``Metric.polars_form``,
``spec.POLARS_FORMS``), in ``RUNNERS``, so that a new form is one entry there.

A runner takes every call of its form and the ``Steps`` of the plan, and returns the
calls' values as frames keyed by the slices (to be joined to the row counts; the runners
of ``ROW_PASSES`` as lazy frames, collected in one pass with ``base``): the
histogram form evaluates every ``from_histogram`` expression in one aggregation of the
score histogram; the rows form every row expression in one aggregation of the used rows
(the histogram metrics too when the scores are nearly all distinct: ``form_run``);
``class_counts`` every ``from_class_counts`` expression in one aggregation of the class
counts; ``class_confusion`` and ``class_histogram`` each call over the confusion matrix
or the class score histogram; ``lists`` each call over the ranking lists read once
(ranking's ``Lists``, whose steps mirror the SQL intermediates, built by its
``call_lists``) and ``frame``
each call's frame function of the used rows (``gauc``). The shared steps (the confusion
matrix, the lists) are built once, when a runner first reads them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cached_property

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.engines.polars_engine import plan
from sqlmetrics.metrics.multiclass import COUNTS, averaged
from sqlmetrics.metrics.ranking import Lists, call_lists
from sqlmetrics.spec import MetricCall


@dataclasses.dataclass
class Steps:
    """What the runners read: the call's binding, its input rows (``plan``), ``base``
    (collected; None while the row passes are built), the judgments or long class scores
    (None without) and the class score histogram (None without class scores); the
    confusion matrix and the ranking lists are built when first read."""

    binding: Binding
    rows: pl.LazyFrame
    base: pl.DataFrame | None  # None for the row passes, which run before it is collected
    judged: pl.LazyFrame | None
    class_hist: pl.DataFrame | None
    collected_list_rows: pl.LazyFrame | None = None  # list_rows, when read in the first pass

    @property
    def slices(self) -> list[str]:
        return list(self.binding.slices)

    @property
    def by(self) -> list[str]:
        """The slices to group the used rows by: none for the constant ``slice_0``
        (grouping by it costs time)."""
        return self.slices if self.binding.by else []

    @cached_property
    def used_rows(self) -> pl.LazyFrame:
        return plan.used_rows(self.rows)

    @property
    def spread(self) -> str | bool:
        """The slice of the interval of a query mean: the pair's with paired scores."""
        return self.binding.pair_slice if self.binding.paired_scores else True

    def brings_spread(self, call: MetricCall) -> bool:
        """Whether the call's own polars step brings its ``_se`` and ``_df`` (a mean over
        queries with an analytic interval, unless it is clustered by a unit other than
        its queries: ``_with_intervals`` takes that from ``queries_by_unit``)."""
        return self.binding.analytic(call) and self.binding.clustered(call) is None

    def queries(self, call: MetricCall) -> pl.DataFrame:
        """A mean over queries' rows: per slice and query, its value and weight (a
        state's queries, ``PerQuery``)."""
        if call.spec.polars_form == "lists":
            lists = dataclasses.replace(self.lists, per_query=True)
            frame = call.spec.module.from_lists(lists, **call.kwargs)
        else:  # a frame function of the used rows (gauc)
            weight = "w" if self.binding.weighted else None
            queries = call.spec.module.queries(
                self.used_rows, score="score", label="label", query="query", weight=weight, by=self.by, **call.kwargs
            )
            value = pl.col("auc")
            weight = pl.when(value.is_not_null()).then("group_weight")
            frame = queries.select(*self.by, "query", value=value, weight=weight)
        values = frame.collect(engine="streaming")
        return values if self.binding.by else values.with_columns(pl.lit(0, pl.Int32).alias("slice_0"))

    def queries_by_unit(self, call: MetricCall) -> pl.LazyFrame:
        """``queries`` with each query's unit (``unit_id``, one: ``rules.tables.unit_rules``)."""
        units = self.used_rows.group_by(*self.slices, "query").agg(pl.col("unit_id").min())
        return self.queries(call).lazy().join(units, on=[*self.slices, "query"], nulls_equal=True)

    @cached_property
    def confusion(self) -> pl.LazyFrame:
        """class_confusion: base summed by slice, true and predicted class (collected once)."""
        return plan.build("class_confusion", self.base.lazy(), self.slices).collect().lazy()

    @property
    def ranks(self) -> bool:
        """Whether a call reads the ranking lists."""
        return any(form_run(call, self.binding) == "lists" for call in self.binding.calls)

    @property
    def list_rows(self) -> pl.LazyFrame:
        """The rows of the ranking lists: the used rows' slices, query, item, score, label."""
        return self.used_rows.select(*self.by, "query", "item", "score", "label")

    @cached_property
    def lists(self) -> Lists:
        """The ranking metrics' input: the used rows, and every list's judged items, as
        deep as the calls read (with their interval's slice when one has an interval).
        The rows are read once (in the first pass, with ``base``, or here): every
        ranking step reads them again. (``list_floors`` too could be taken in the first
        pass; it measured slower there: MRR over 5M rows 0.22 s against 0.18 s.)"""
        rows = self.collected_list_rows
        if rows is None:
            rows = self.list_rows.collect(engine="streaming").lazy()
        calls = self.binding.calls
        spread = any(call.spec.polars_form == "lists" and self.brings_spread(call) for call in calls)
        return call_lists(rows, self.judged, self.by, calls, self.spread if spread else None)


Runner = Callable[[list[MetricCall], Steps], list[pl.DataFrame] | list[pl.LazyFrame]]


def _histogram(calls: list[MetricCall], steps: Steps) -> list[pl.DataFrame]:
    """Every ``from_histogram`` expression in one aggregation of the score histogram."""
    hist = [pl.col("score"), pl.col("w_pos"), pl.col("w_neg")]
    exprs = [call.spec.module.from_histogram(*hist, **call.kwargs).alias(call.column) for call in calls]
    # sorted once by score: the metrics that walk the scores (auc, average_precision)
    # sort each slice's rows again, which costs little on sorted rows (AP over 5M
    # distinct scores: 2.9 s -> 1.9 s); one key, as a sort by slices too is slower
    hist_rows = plan.build("score_hist", steps.base, steps.slices).sort("score", descending=True)
    return [hist_rows.lazy().group_by(steps.slices).agg(exprs).collect()]


def _rows(calls: list[MetricCall], steps: Steps) -> list[pl.LazyFrame]:
    """Every row expression (and extra output) in one aggregation of the used rows."""
    aggregates = [e for call in calls for e in _row_aggregates(call, steps.binding.weighted)]
    return [_aggregated(steps.used_rows, steps.by, aggregates)]


def _class_counts(calls: list[MetricCall], steps: Steps) -> list[pl.DataFrame]:
    """Every ``from_class_counts`` expression in one aggregation of the class counts."""
    exprs = [call.spec.module.from_class_counts(*COUNTS, **call.kwargs).alias(call.column) for call in calls]
    return [plan.build("class_counts", steps.confusion, steps.slices).group_by(steps.slices).agg(exprs).collect()]


def _class_confusion(calls: list[MetricCall], steps: Steps) -> list[pl.DataFrame]:
    """Each call's ``from_class_confusion`` over the confusion matrix."""
    return [
        call.spec.module.from_class_confusion(steps.confusion, steps.slices, **call.kwargs)
        .rename({"value": call.column})
        .collect()
        for call in calls
    ]


def _class_histogram(calls: list[MetricCall], steps: Steps) -> list[pl.DataFrame]:
    """Each call's ``from_class_histogram`` over the class score histogram, averaged
    over the classes as the call asks, with its extra outputs."""
    frames = []
    for call in calls:
        values = averaged(
            steps.class_hist.lazy(), steps.slices, call.spec.module.from_class_histogram, call.kwargs["average"]
        )
        names = {"value": call.column, **{out: f"{call.column}_{out}" for out in call.spec.outputs}}
        frames.append(values.collect().rename(names))
    return frames


def _lists(calls: list[MetricCall], steps: Steps) -> list[pl.DataFrame]:
    """Each call's ``from_lists`` over the ranking lists."""
    return [_frame_values(call, call.spec.module.from_lists(steps.lists, **call.kwargs), steps) for call in calls]


def _frames(calls: list[MetricCall], steps: Steps) -> list[pl.LazyFrame]:
    """Each call's frame function of the used rows (with its interval's slice when it has
    an interval: gauc); unweighted, with no weight column: faster rank-based forms."""
    binding = steps.binding
    weight = "w" if binding.weighted else None
    frames = []
    for call in calls:
        spreads = {"spread": steps.spread} if steps.brings_spread(call) else {}
        rows = steps.used_rows
        frame = call.spec.module.frame(
            rows,
            score="score",
            label="label",
            query="query",
            weight=weight,
            by=steps.by,
            **call.kwargs,
            **spreads,
            **{role.name: role.name for role in call.spec.roles},  # a family's roles, under their names
        )
        frames.append(_call_columns(call, frame, steps))
    return frames


# The runner of each polars form, in the order they run.
RUNNERS: dict[str, Runner] = {
    "histogram": _histogram,
    "class_counts": _class_counts,
    "class_confusion": _class_confusion,
    "class_histogram": _class_histogram,
    "rows": _rows,
    "lists": _lists,
    "frame": _frames,
}
# The forms whose whole work is a pass over the used rows: their runners give lazy frames
# (and read no ``base``), collected in the same pass as ``base`` (``plan.collect_checked``).
ROW_PASSES = ("rows", "frame")


def form_run(call: MetricCall, binding: Binding) -> str:
    """The form a call runs in: its spec's, but a histogram metric that does not read the
    score histogram (nearly distinct scores, ``plan.reads_histogram``) runs in the rows
    form, its row expression in the same aggregation as the regression metrics' (a
    histogram would hold a row per row; auc is then one rank-sum, the same number)."""
    if call.spec.polars_form == "histogram" and not plan.reads_histogram(call, binding):
        return "rows"
    return call.spec.polars_form


def runs(binding: Binding, row_passes: bool) -> list[tuple[Runner, list[MetricCall]]]:
    """Each runner of ``ROW_PASSES`` (``row_passes``) or of the other forms, with the calls
    of its form (``form_run``), in the order of ``RUNNERS`` and of the calls; forms
    without a call are left out, and a form without a runner is an error
    (``tests/test_docs.py`` fails on one first)."""
    forms = [form_run(call, binding) for call in binding.calls]
    missing = sorted(set(forms) - set(RUNNERS))
    if missing:
        raise RuntimeError(f"polars form {missing[0]!r} has no runner in polars_engine.forms.RUNNERS")
    return [
        (runner, [call for call, of in zip(binding.calls, forms) if of == form])
        for form, runner in RUNNERS.items()
        if form in forms and (form in ROW_PASSES) == row_passes
    ]


def _frame_values(call: MetricCall, frame: pl.LazyFrame, steps: Steps) -> pl.DataFrame:
    """A frame function's result as the call's columns, collected (``_call_columns``)."""
    return _call_columns(call, frame, steps).collect(engine="streaming")


def _call_columns(call: MetricCall, frame: pl.LazyFrame, steps: Steps) -> pl.LazyFrame:
    """A frame function's result as the call's columns (with its ``_se`` and ``_df``
    when it has an interval), keyed by the slices (``slice_0`` added without)."""
    if not steps.binding.by:
        frame = frame.with_columns(pl.lit(0, pl.Int32).alias("slice_0"))
    columns = [*call.columns, *((f"{call.column}_se", f"{call.column}_df") if steps.brings_spread(call) else ())]
    return frame.rename({f"{call.base_name}{c[len(call.column) :]}": c for c in columns})


def _aggregated(rows: pl.LazyFrame, by: list[str], aggregates: list[pl.Expr]) -> pl.LazyFrame:
    """``aggregates`` over each slice of ``rows``; without slices a plain select, with the
    constant ``slice_0``: a group_by runs a rank or sort in its group context, which
    measured 1.5x slower (auc over 5M distinct scores: 1.12 s against 0.72 s). Each
    aggregate is one value, taken with ``first()``: polars 1.39's streaming engine
    broadcasts a literal shared by two aggregates (mse and mae: their ``!= 0``) to every
    row, and the select then gave one row per input row."""
    if by:
        return rows.group_by(by).agg(aggregates)
    return rows.select(a.first() for a in aggregates).with_columns(pl.lit(0, pl.Int32).alias("slice_0"))


def _row_aggregates(call: MetricCall, weighted: bool) -> list[pl.Expr]:
    """The metric's expression over the canonical columns of the used rows, and one per
    extra output: the module's function of the output's name (``mape.skipped``).
    Unweighted, the expressions get no weight column (the median then needs no sort)."""
    module, w = call.spec.module, "w" if weighted else None
    roles = {role.name: role.name for role in call.spec.roles}  # a family's roles, under their names
    return [
        module.expr("score", "label", w, **roles, **call.kwargs).alias(call.column),
        *(getattr(module, out)("score", "label", w).alias(f"{call.column}_{out}") for out in call.spec.outputs),
    ]
