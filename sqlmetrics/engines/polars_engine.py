"""The polars engine: the plan of the composed SQL, computed with the metrics' polars
expressions over LazyFrames.

``base`` (one row per slice, and per distinct score when a metric reads the histogram)
is the one aggregation over the source (the rows are read again only to show an example
of a rule they break); the checks and row counts read it; every single-level metric is
its ``from_histogram`` expression evaluated on the score histogram; regression metrics
are their row expressions, all in one aggregation of the used rows per slice;
multi-class metrics are their ``from_class_counts`` expressions, all in one aggregation
of the class counts (read from base, keyed by true and predicted class), or
``cohen_kappa``'s ``from_class_confusion`` over the confusion matrix; one-vs-rest
metrics read the class score histogram of the used rows (wide scores unpivoted, long
scores joined by row id; ``metrics/multiclass/_ovr.py``); metrics that sort within
queries (gauc) call their frame function on the used rows; ranking metrics read the
used rows once more, into ``Lists`` (``metrics/ranking/_lists.py``), whose steps
mirror the SQL intermediates.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import polars as pl

from sqlmetrics import bootstrap, intervals
from sqlmetrics.binding import Binding, check_long_schema, check_schema, check_second_schema
from sqlmetrics.checks import checks_for, raise_failed, raise_weight_total, row_counters_polars
from sqlmetrics.interrupt import in_a_worker
from sqlmetrics.metrics.multiclass import (
    COUNTS,
    averaged,
    class_confusion,
    class_counts,
    class_score_hist,
    long_rows,
    per_class_scores,
    wide_rows,
)
from sqlmetrics.metrics.ranking import Lists, run_lists
from sqlmetrics.sources import names_unreadable_files, polars_source
from sqlmetrics.spec import MetricCall
from sqlmetrics.table_rules import RuleTables, class_score_rules, raise_failed_tables, run_rules


@names_unreadable_files
@in_a_worker
def run(binding: Binding, source: Any, second: Any = None) -> pl.DataFrame:
    """Every metric of ``binding`` over ``source`` (and ``second``: the judgments of a
    run, or long class scores)."""
    rows, base, judged = _checked_base(binding, source, second)
    slices = list(binding.slices)
    results = _row_counts(binding, base)
    single = [call for call in binding.calls if _from_histogram(call, binding)]
    if single:
        hist = [pl.col("score"), pl.col("w_pos"), pl.col("w_neg")]
        exprs = [call.spec.module.from_histogram(*hist, **call.kwargs).alias(call.column) for call in single]
        # sorted once by score: the metrics that walk the scores (auc, average_precision)
        # sort each slice's rows again, which costs little on sorted rows (AP over 5M
        # distinct scores: 2.9 s -> 1.9 s); one key, as a sort by slices too is slower
        hist_rows = _score_hist(base, slices).sort("score", descending=True)
        values = hist_rows.lazy().group_by(slices).agg(exprs).collect()
        results = results.join(values, on=slices, how="left", nulls_equal=True)
    multiclass = _calls_of_form(binding, "class_counts")
    pairwise = _calls_of_form(binding, "class_confusion")
    confusion = class_confusion(base.lazy(), slices).collect().lazy() if multiclass or pairwise else None
    if multiclass:
        exprs = [call.spec.module.from_class_counts(*COUNTS, **call.kwargs).alias(call.column) for call in multiclass]
        values = class_counts(confusion, slices).group_by(slices).agg(exprs).collect()
        results = results.join(values, on=slices, how="left", nulls_equal=True)
    for call in pairwise:
        values = call.spec.module.from_class_confusion(confusion, slices, **call.kwargs)
        results = results.join(values.rename({"value": call.column}).collect(), on=slices, how="left", nulls_equal=True)
    used_rows = rows.filter(pl.col("w").is_not_null())
    one_vs_rest = _calls_of_form(binding, "class_histogram")
    if binding.class_scores is not None:  # bound class scores are checked, whatever reads them
        if binding.long_scores is not None:
            class_rows = long_rows(used_rows, slices, judged)
        else:
            class_rows = wide_rows(used_rows, slices, binding.class_scores.classes)
        hist = class_score_hist(class_rows, slices).collect(engine="streaming")
        raise_failed_tables(class_score_rules(binding), RuleTables(rows, judged, base, hist))
        for call in one_vs_rest:
            values = averaged(hist.lazy(), slices, call.spec.module.from_class_histogram, call.kwargs["average"])
            names = {"value": call.column, **{out: f"{call.column}_{out}" for out in call.spec.outputs}}
            results = results.join(values.collect().rename(names), on=slices, how="left", nulls_equal=True)
    by = slices if binding.by else []  # grouping by the constant slice_0 costs time
    row_level = [call for call in binding.calls if _is_row_level(call, binding)]
    if row_level:
        weighted = binding.weighted
        aggregates = [e for call in row_level for e in _row_aggregates(call, weighted)]
        values = _aggregated(used_rows, by, aggregates)
        results = results.join(values.collect(engine="streaming"), on=slices, how="left", nulls_equal=True)
    lists = _lists(binding, used_rows, judged, by).reached_by(binding.calls) if binding.ranking else None
    spread = binding.pair_slice if binding.paired_scores else True  # the interval of a query mean
    if lists is not None and any(call.spec.polars_form == "lists" for call in binding.analytic_calls):
        lists = dataclasses.replace(lists, spread=spread)
    for call in binding.calls:
        if call in single or call in row_level or call in multiclass or call in pairwise or call in one_vs_rest:
            continue
        if call.spec.polars_form == "lists":
            frame = call.spec.module.from_lists(lists, **call.kwargs)
        else:
            weight = "w" if binding.weighted else None  # unweighted: faster rank-based forms
            spreads = {"spread": spread} if binding.analytic(call) else {}  # frame metrics with an interval: gauc
            frame = call.spec.module.frame(
                used_rows, score="score", label="label", query="query", weight=weight, by=by, **call.kwargs, **spreads
            )
        frame = frame.collect(engine="streaming")
        if not binding.by:
            frame = frame.with_columns(pl.lit(0, pl.Int32).alias("slice_0"))
        columns = [*call.columns, *((f"{call.column}_se", f"{call.column}_df") if binding.analytic(call) else ())]
        renamed = frame.rename({f"{call.base_name}{c[len(call.column) :]}": c for c in columns})
        results = results.join(renamed, on=slices, how="left", nulls_equal=True)
    if binding.analytic_calls:
        results = _with_intervals(binding, results, used_rows, base, slices)

    counts = [f"{call.column}_{out}" for call in binding.calls for out in call.spec.outputs]
    results = results.with_columns(pl.col(counts).fill_null(0))
    if binding.by:
        results = results.sort(slices, nulls_last=True)
    return results.rename(dict(zip(slices, binding.by))).select(binding.output_columns)


@names_unreadable_files
@in_a_worker
def confusion_matrix(binding: Binding, source: Any) -> pl.DataFrame:
    """``sm.confusion_matrix``: the class_confusion of base, under the user's names."""
    _, base, _ = _checked_base(binding, source)
    slices = list(binding.slices)
    matrix = class_confusion(base.lazy(), slices).rename(
        {"true_class": "label", "predicted_class": "prediction", "w": "weight"}
    )
    columns = [*binding.by, "label", "prediction", "n", *(["weight"] if binding.weight is not None else [])]
    return _user_table(binding, matrix.collect(), ["label", "prediction"]).select(columns)


@names_unreadable_files
@in_a_worker
def per_class(binding: Binding, source: Any) -> pl.DataFrame:
    """``sm.per_class``: per slice and class, the support and each metric's per-class value
    (its module's column of ``per_class_scores``, at its β)."""
    _, base, _ = _checked_base(binding, source)
    slices = list(binding.slices)
    counts = class_counts(class_confusion(base.lazy(), slices), slices).collect().lazy()
    table = counts.select(*slices, "class", "support")
    for call in binding.calls:
        scores = per_class_scores(counts, call.kwargs.get("beta", 1.0))
        value = scores.select(*slices, "class", pl.col(call.spec.per_class).alias(call.column))
        table = table.join(value, on=[*slices, "class"], how="left", nulls_equal=True)
    return _user_table(binding, table.collect(), ["class"]).select(
        *binding.by, "class", "support", *(c.column for c in binding.calls)
    )


def _user_table(binding: Binding, table: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """A table of classes sorted by slice and ``keys``, its slices under the user's names."""
    slices = list(binding.slices) if binding.by else []
    return table.sort([*slices, *keys], nulls_last=True).rename(dict(zip(slices, binding.by)))


def _checked_base(
    binding: Binding, source: Any, second: Any = None, keys: tuple[str, ...] | None = None
) -> tuple[pl.LazyFrame, pl.DataFrame, Any]:
    """The source's rows under canonical names, ``base`` (collected, keyed by ``keys``,
    default ``_base_keys``) once the input rules hold, and the second table under
    canonical names: the judgments or the long class scores (None without)."""
    lf = polars_source(source, binding.source_columns)
    schema = {name: str(dtype) for name, dtype in lf.collect_schema().items()}
    check_schema(binding, schema)
    judged = None
    if binding.long_scores is not None:
        judged = _long_scores(binding, second, schema)
    elif second is not None:
        judged = _judgments(binding, second, schema)
    checks = checks_for(binding.calls, binding.weight is not None)
    rows = _input(binding, lf, judged)
    keys = _base_keys(binding) if keys is None else keys
    base = _base(binding, rows, checks, keys).collect(engine="streaming")
    original = base.filter(pl.col(binding.replicate_slice) == 0) if binding.bootstrap else base  # as compose/checks.py
    raise_failed(original, rows, checks, keys, binding.role_columns)
    if binding.weight is not None:
        raise_weight_total(original, binding.slices, binding.weight)
    if binding.judgments:
        raise_failed_tables(run_rules(binding), RuleTables(rows, judged))
    return rows, base, judged


def _with_intervals(
    binding: Binding, results: pl.DataFrame, used_rows: pl.LazyFrame, base: pl.DataFrame, slices: list[str]
) -> pl.DataFrame:
    """``results`` with every call's ``_lo`` and ``_hi`` (``sqlmetrics.intervals``): the
    query-level metrics brought their ``_se`` and ``_df``; the others' spread is taken
    here from the score histogram (auc's DeLong, the row means: from ``base`` when it is
    keyed by score, else from the used rows, once) or from the used rows (proportions,
    regression errors)."""

    @functools.cache
    def histogram() -> pl.LazyFrame:
        if {"score", "w_pos"} <= set(base.columns):
            return _score_hist(base, slices).select(*slices, "score", "w_pos", "w_neg").lazy()
        return intervals.score_histogram(used_rows, slices).collect(engine="streaming").lazy()

    for call in binding.analytic_calls:
        if binding.paired_scores:
            spread = intervals.paired_row_spread_polars(call, used_rows, slices, binding.pair_slice)
        else:
            spread = intervals.row_spread_polars(call, used_rows, histogram, slices)
        if spread is not None:
            spread = spread.collect(engine="streaming").rename({"se": f"{call.column}_se", "df": f"{call.column}_df"})
            results = results.join(spread, on=slices, how="left", nulls_equal=True)
    return intervals.bounds_polars(results, binding.analytic_calls, binding.ci)


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


def _calls_of_form(binding: Binding, form: str) -> list[MetricCall]:
    return [call for call in binding.calls if call.spec.polars_form == form]


def _from_histogram(call: MetricCall, binding: Binding) -> bool:
    """A metric computed by its ``from_histogram`` expression over the score histogram:
    one of the histogram form, unless the scores are nearly all distinct
    (``Binding.distinct_scores``) and its row expression is not slower (its spec's
    ``row_plan``)."""
    spec = call.spec
    return spec.polars_form == "histogram" and (not binding.distinct_scores or not spec.row_plan)


def _is_row_level(call: MetricCall, binding: Binding) -> bool:
    """A metric computed by its row expression over each slice's used rows: regression
    metrics, and the histogram metrics when the scores are nearly all distinct (a
    histogram would hold a row per row; auc is then one rank-sum, the same number)."""
    return call.spec.is_expression and not _from_histogram(call, binding)


def _row_aggregates(call: MetricCall, weighted: bool) -> list[pl.Expr]:
    """The metric's expression over the canonical columns of the used rows, and one per
    extra output: the module's function of the output's name (``mape.skipped``).
    Unweighted, the expressions get no weight column (the median then needs no sort)."""
    module, w = call.spec.module, "w" if weighted else None
    return [
        module.expr("score", "label", w, **call.kwargs).alias(call.column),
        *(getattr(module, out)("score", "label", w).alias(f"{call.column}_{out}") for out in call.spec.outputs),
    ]


def _judgments(binding: Binding, judgments: Any, source_schema: dict[str, str]) -> pl.LazyFrame:
    """The judgments under canonical names: query, item, label (the relevance)."""
    judged = polars_source(judgments, binding.second_columns)
    check_second_schema(binding, {name: str(dtype) for name, dtype in judged.collect_schema().items()}, source_schema)
    return judged.select(
        query=pl.col(binding.judgment_roles["query"]),
        item=pl.col(binding.judgment_roles["item"]),
        label=pl.col(binding.label).cast(pl.Float64),
    )


def _long_scores(binding: Binding, table: Any, source_schema: dict[str, str]) -> pl.LazyFrame:
    """The long class scores under canonical names: row_id, class, score."""
    long = binding.long_scores
    scores = polars_source(table, binding.second_columns)
    check_long_schema(binding, {name: str(dtype) for name, dtype in scores.collect_schema().items()}, source_schema)
    return scores.select(
        row_id=pl.col(long.row_id), **{"class": pl.col(long.class_)}, score=pl.col(long.score).cast(pl.Float64)
    )


def _input(binding: Binding, lf: pl.LazyFrame, judged: pl.LazyFrame | None) -> pl.LazyFrame:
    """The source under canonical names; ``w`` is NULL for an excluded row (see compose).
    A run takes each row's label from the judgments (0 when unjudged). The true and
    predicted classes keep their types (check_schema made sure they compare). With long
    class scores, each row gets its row id's count of classes (``n_classes``), and a row
    with a NULL class score is excluded."""
    roles = binding.roles
    slices = [pl.col(c).alias(s) for s, c in zip(binding.slices, binding.source_by)]
    slices = slices or [pl.lit(0, pl.Int32).alias("slice_0")]
    weight = pl.col(roles["weight"]).cast(pl.Float64) if "weight" in roles else pl.lit(1.0)
    wide = [column for _, column in binding.wide_scores]
    paired = list(binding.paired_scores or ())
    excluded = pl.any_horizontal(pl.col(c).is_null() for c in [*roles.values(), *paired[1:], *wide])
    scores = [pl.col(c).cast(pl.Float64).alias(f"score_{i}") for i, c in enumerate(paired, 1)]
    if "score" in roles and not paired:
        scores = [pl.col(roles["score"]).cast(pl.Float64).alias("score")]
    columns = [
        *slices,
        *(
            [pl.col(roles["label"]).cast(pl.Float64).alias("label")]
            if binding.numeric_label and "label" in roles
            else []
        ),
        *scores,
        *(pl.col(roles[role]).alias(key) for role, key in zip(("label", "prediction"), binding.class_keys)),
        *(pl.col(column).cast(pl.Float64).alias(f"class_score_{i}") for i, column in enumerate(wide, 1)),
        *([pl.col(roles["row_id"]).alias("row_id")] if "row_id" in roles else []),
        weight.alias("weight"),
        pl.when(excluded).then(None).otherwise(weight).alias("w"),
    ]
    if binding.needs_query:
        columns.append(pl.col(roles["query"]).alias("query"))
    if binding.ranking:
        columns.append((pl.col(roles["item"]) if "item" in roles else pl.lit(None)).alias("item"))
    rows = lf.select(*columns, *_unit_number(binding))
    if (paired or binding.bootstrap) and not binding.source_by:
        rows = rows.drop("slice_0")  # the pairs and replicates are the slices
    if binding.bootstrap:
        rows = _resampled_rows(binding, rows if binding.bootstrap.unit else _numbered_rows(rows))
    if paired:
        return _paired_rows(_judged_rows(rows, judged), binding.pair_slice)
    if binding.bootstrap:
        return rows
    if binding.long_scores is not None:
        counts = judged.group_by("row_id").agg(
            n_classes=pl.len().cast(pl.Int64), n_scored=pl.col("score").count().cast(pl.Int64)
        )
        unscored = pl.col("n_scored") < pl.col("n_classes")
        joined = rows.join(counts, on="row_id", how="left")
        return joined.with_columns(w=pl.when(unscored.fill_null(False)).then(None).otherwise(pl.col("w"))).drop(
            "n_scored"
        )
    return _judged_rows(rows, judged)


def _judged_rows(rows: pl.LazyFrame, judged: pl.LazyFrame | None) -> pl.LazyFrame:
    """A run's rows with each row's label from the judgments (0 when unjudged); other
    rows as they are."""
    if judged is None:
        return rows
    labels = judged.filter(pl.col("query").is_not_null() & pl.col("item").is_not_null())
    return rows.join(labels, on=["query", "item"], how="left").with_columns(pl.col("label").fill_null(0.0))


def _paired_rows(rows: pl.LazyFrame, pair: str) -> pl.LazyFrame:
    """Each row twice, as compose/plan.py's paired input: with the slice ``pair`` = 1 and
    ``score`` its first score, and = 2 and its second; both scores stay (``score_1``,
    ``score_2``: the paired DeLong reads them on the rows of ``pair`` = 1)."""
    copies = [rows.with_columns(pl.lit(i, pl.Int32).alias(pair), pl.col(f"score_{i}").alias("score")) for i in (1, 2)]
    return pl.concat(copies)


def _unit_number(binding: Binding) -> list[pl.Expr]:
    """A bootstrap's unit number over the source, as compose/plan.py's: the dense rank of
    ``ci_unit`` (none for the rows: ``_numbered_rows``)."""
    unit = binding.bootstrap.unit if binding.bootstrap else None
    return [] if unit is None else [pl.col(unit).rank("dense").cast(pl.Int64).alias("unit_id")]


def _numbered_rows(rows: pl.LazyFrame) -> pl.LazyFrame:
    """``rows`` with each row's number from 1 in the order of its columns (compose/plan.py's)."""
    order = [name for name in rows.collect_schema() if name != "slice_0"]  # w: NULL for an excluded row
    numbered = rows.sort(order, nulls_last=True, maintain_order=True).with_row_index("unit_id", offset=1)
    return numbered.with_columns(pl.col("unit_id").cast(pl.Int64))


def _resampled_rows(binding: Binding, rows: pl.LazyFrame) -> pl.LazyFrame:
    """compose/plan.py's bootstrap input: each row once per replicate (the slice
    REPLICATE_SLICE), its weight times the replicate's Poisson(1) count of its unit."""
    boot, replicate = binding.bootstrap, binding.replicate_slice
    replicates = pl.LazyFrame({replicate: list(range(boot.resamples + 1))}, schema={replicate: pl.Int32})
    count = bootstrap.counts_polars(pl.col("unit_id"), pl.col(replicate).cast(pl.Int64), boot.seed)
    return rows.join(replicates, how="cross").with_columns(w=pl.col("w") * count).drop("unit_id")


def _lists(binding: Binding, used_rows: pl.LazyFrame, judged: pl.LazyFrame | None, by: list[str]) -> Lists:
    """The ranking metrics' input: the used rows, and every list's judged items. The rows
    are read once: every ranking step reads them again."""
    rows = used_rows.select(*by, "query", "item", "score", "label").collect(engine="streaming").lazy()
    if judged is None:
        return Lists(rows, rows.select(*by, "query", "label"), by)
    return run_lists(rows.drop("label"), judged, by)


def _base_keys(binding: Binding) -> tuple[str, ...]:
    """base's grouping keys besides the slices: the score when a metric reads the score
    histogram, the true and predicted class for multi-class metrics (the true class for
    one-vs-rest metrics). Unlike the SQL plan
    (which also groups by label), polars sums the positives' weight: measured faster in
    polars at any number of distinct scores, and it gives from_histogram distinct scores
    directly (unless classes are keys too)."""
    histogram = ("score",) if any(_from_histogram(call, binding) for call in binding.calls) else ()
    return (*histogram, *binding.class_keys)


def _base(binding: Binding, rows: pl.LazyFrame, checks: list, keys: tuple[str, ...]) -> pl.LazyFrame:
    """One row per slice and distinct score (or per slice): used rows, their weight and
    positive weight."""
    w = pl.col("w")
    aggregates = [
        pl.len().cast(pl.Int64).alias("n_all"),
        w.count().cast(pl.Int64).alias("n"),
        w.sum().alias("w"),
        *([(w * pl.col("label")).sum().alias("w_pos")] if binding.numeric_label else []),
        *row_counters_polars(checks, keys),
    ]
    return rows.group_by([*binding.slices, *keys]).agg(aggregates)


def _score_hist(base: pl.DataFrame, slices: list[str]) -> pl.DataFrame:
    """score_hist: one row per slice and distinct score with its positive and negative
    weight, the input of every metric's ``from_histogram`` (summed over the classes when
    base is keyed by them too)."""
    used = base.filter(pl.col("n") > 0)
    if "true_class" in base.columns:
        used = used.group_by([*slices, "score"]).agg(pl.col("w", "w_pos").sum())
    return used.with_columns(w_neg=pl.col("w") - pl.col("w_pos"))


def _row_counts(binding: Binding, base: pl.DataFrame) -> pl.DataFrame:
    counts = [
        pl.col("n").sum().cast(pl.Int64).alias("n_rows"),
        (pl.col("n_all").sum() - pl.col("n").sum()).cast(pl.Int64).alias("n_excluded"),
    ]
    if not binding.by:  # one row even for an empty source
        return base.select(pl.lit(0, pl.Int32).alias("slice_0"), *counts)
    return base.group_by(list(binding.slices)).agg(counts)


@names_unreadable_files
@in_a_worker
def score_hist(binding: Binding, source: Any) -> pl.DataFrame:
    """The score histogram of ``source`` once the rules of ``binding``'s calls hold: one
    row per slice and distinct score with n (used rows), w, w_pos, w_neg. Curves start
    from it."""
    _, base, _ = _checked_base(binding, source, keys=("score",))
    return _score_hist(base, list(binding.slices))
