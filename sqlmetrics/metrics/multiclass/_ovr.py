"""Shared pieces of the one-vs-rest metrics' polars forms (``multiclass_auc``,
``multiclass_average_precision``).

Both shapes of class scores (``sqlmetrics/binding/class_scores.py``) are normalised to class
rows: one row per used row and class with the class's ``score``, the row's
``true_class`` and weight ``w`` (the SQL ``class_score_rows``), then summed into one
score histogram per slice and class (``class_score_hist``: score, n, w_pos, w_neg).
Each metric module has

* ``from_class_histogram(s, w_pos, w_neg)``: the binary metric of one class's
  histogram (the binary module's ``from_histogram``), evaluated per slice and class;
* ``frame(data, *, label, class_scores, weight=None, by=(), average="macro")``: the
  public polars form, a function of a frame.

Per slice, the per-class values are averaged by ``averaged``: classes whose value is
NULL (no positive or no negative weight) are left out and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from sqlmetrics.binding.class_scores import LongClassScores
from sqlmetrics.metrics.classification._binary import ratio
from sqlmetrics.metrics.multiclass.class_scores import parse
from sqlmetrics.sources import Frame, in_kind, polars_source, slice_names
from sqlmetrics.spec import Param

OVR_AVERAGE = Param(
    "average",
    str,
    "macro",
    "how per-class values are combined: macro (mean over classes), weighted (mean weighted by each class's "
    "true weight, its prevalence)",
    choices=("macro", "weighted"),
)


def wide_rows(rows: pl.LazyFrame, by: Sequence[str], classes: Sequence[Any]) -> pl.LazyFrame:
    """Class rows of used rows holding ``class_score_<i>`` columns (i = 1.. in the order
    of ``classes``): one unpivot, each column's name then mapped to its class."""
    columns = [f"class_score_{i}" for i in range(1, len(classes) + 1)]
    names = pl.LazyFrame({"column": columns, "class": pl.Series(list(classes), strict=False)})
    kept = rows.select(*by, "true_class", "w", *columns)  # rows may hold a binary metric's score too
    long = kept.unpivot(on=columns, index=[*by, "true_class", "w"], variable_name="column", value_name="score")
    return long.join(names, on="column").select(*by, "class", "score", "true_class", "w")


def long_rows(rows: pl.LazyFrame, by: Sequence[str], scores: pl.LazyFrame) -> pl.LazyFrame:
    """Class rows of used rows holding ``row_id``, joined with the long scores
    (``row_id``, ``class``, ``score``)."""
    joined = rows.select(*by, "row_id", "true_class", "w").join(scores, on="row_id")
    return joined.select(*by, "class", "score", "true_class", "w")


def class_score_hist(class_rows: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    """Per slice, class and distinct score: rows ``n``, positive weight ``w_pos`` (rows
    of that true class) and negative weight ``w_neg`` (the SQL ``class_score_hist``)."""
    positive = pl.col("true_class") == pl.col("class")
    w, zero = pl.col("w"), pl.lit(0.0)
    return class_rows.group_by([*by, "class", "score"]).agg(
        n=pl.len().cast(pl.Int64),
        w_pos=pl.when(positive).then(w).otherwise(zero).sum(),
        w_neg=pl.when(positive).then(zero).otherwise(w).sum(),
    )


def averaged(hist: pl.LazyFrame, by: Sequence[str], per_class: Callable[..., pl.Expr], average: str) -> pl.LazyFrame:
    """Per slice of ``hist``: ``value`` (the per-class values of ``per_class(s, w_pos,
    w_neg)`` averaged: ``macro``, their mean; ``weighted``, weighted by each class's
    positive weight), ``classes`` (classes with a value) and ``skipped`` (without)."""
    s, w_pos, w_neg = pl.col("score"), pl.col("w_pos"), pl.col("w_neg")
    values = hist.group_by([*by, "class"]).agg(value=per_class(s, w_pos, w_neg), support=w_pos.sum())
    value, support = pl.col("value"), pl.col("support")
    if average == "macro":
        mean = value.mean()
    else:
        mean = ratio((value * support).sum(), support.filter(value.is_not_null()).sum())
    aggregates = [
        mean.alias("value"),
        value.count().cast(pl.Int64).alias("classes"),
        value.null_count().cast(pl.Int64).alias("skipped"),
    ]
    return values.group_by(list(by)).agg(aggregates) if by else values.select(aggregates)


def per_slice(
    data: Frame,
    per_class: Callable[..., pl.Expr],
    name: str,
    *,
    label: str,
    class_scores: Mapping[Any, str] | LongClassScores,
    weight: str | None,
    by: Sequence[str],
    average: str,
) -> Frame:
    """The averaged one-vs-rest metric (columns ``name``, ``name_classes``,
    ``name_skipped``) for every slice of ``by`` of ``data``, with wide or long class
    scores; rows with a NULL label, weight or class score (or row id) are left out first.
    Slices without used rows are absent. Nothing is validated (``sm.evaluate`` does)."""
    description, table = parse(class_scores)
    lazy = data.lazy()
    w = pl.lit(1.0) if weight is None else pl.col(weight).cast(pl.Float64)
    slices = slice_names(by)
    keys = [*(pl.col(c).alias(s) for c, s in zip(by, slices)), pl.col(label).alias("true_class"), w.alias("w")]
    if table is None:
        scores = [
            pl.col(column).cast(pl.Float64).alias(f"class_score_{i}")
            for i, (_, column) in enumerate(description.columns, 1)
        ]
        names = [f"class_score_{i}" for i in range(1, len(scores) + 1)]
        rows = lazy.select(*keys, *scores).drop_nulls(["true_class", "w", *names])
        class_rows = wide_rows(rows, slices, description.classes)
    else:
        long = polars_source(table, (description.row_id, description.class_, description.score)).select(
            pl.col(description.row_id).alias("row_id"),
            pl.col(description.class_).alias("class"),
            pl.col(description.score).cast(pl.Float64).alias("score"),
        )
        unscored = long.filter(pl.col("score").is_null()).select("row_id")
        rows = (
            lazy.select(*keys, pl.col(description.row_id).alias("row_id"))
            .drop_nulls(["true_class", "w", "row_id"])
            .join(unscored, on="row_id", how="anti")
        )
        class_rows = long_rows(rows, slices, long)
    result = averaged(class_score_hist(class_rows, slices), slices, per_class, average)
    outputs = {"value": name, "classes": f"{name}_classes", "skipped": f"{name}_skipped"}
    result = result.rename({**outputs, **dict(zip(slices, by))})
    result = result.sort(list(by), nulls_last=True) if by else result
    return in_kind(result, data)
