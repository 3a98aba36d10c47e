"""Shared pieces of the multi-class metrics' polars forms.

Every multi-class metric is computed from its slice's class counts, exactly the columns
of the SQL intermediate ``class_counts``: per class, ``tp`` (weight of rows whose true and
predicted class are this class), ``support`` (weight of rows of this true class) and
``predicted`` (weight of rows predicted as this class). Each metric module has

* ``from_class_counts(tp, support, predicted, **params)``: an aggregation over one
  slice's class rows (the polars engine evaluates it on the class counts of base), or,
  for a metric that weighs pairs of classes (``cohen_kappa``),
  ``from_class_confusion(confusion, by, **params)``: a frame of ``value`` per slice;
* ``frame(data, *, label, prediction, weight=None, by=(), **params)``: the public polars
  form, a function of a frame (a metric over classes needs two aggregation levels, like
  ``gauc``), which builds the class counts from the rows and applies the former.

The per-class metrics (precision, recall, F-scores) also name their column of
``per_class_values`` (its spec's ``per_class``), which ``sm.per_class`` reports class by class.

Classes are compared as they are, never cast: numbers (and booleans) by value, strings
as strings; where the label's and the prediction's types differ (Int64 and Float64),
the class column of the counts takes their common supertype, as in SQL's UNION.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.intervals.class_confusion_delta import class_confusion_delta
from sqlmetrics.metrics.classification._binary import fscore_weights, ratio
from sqlmetrics.metrics.multiclass.rules import check_classes
from sqlmetrics.sources import Frame, slice_names
from sqlmetrics.spec import Interval, Param

AVERAGE = Param(
    "average",
    str,
    "macro",
    "how per-class values are combined: macro (mean over classes), micro (pooled counts), "
    "weighted (mean weighted by each class's support)",
    choices=("macro", "micro", "weighted"),
)

CLASS_KEYS = ["true_class", "predicted_class"]
COUNTS = (pl.col("tp"), pl.col("support"), pl.col("predicted"))


def class_confusion(groups: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    """The confusion matrix of each slice (the SQL ``class_confusion``): rows or groups
    with ``true_class``, ``predicted_class``, ``n`` used rows and their weight ``w``,
    summed per pair of classes that occurs in a used row."""
    used = groups.filter(pl.col("n") > 0)
    return used.group_by([*by, *CLASS_KEYS]).agg(pl.col("n").sum().cast(pl.Int64), pl.col("w").sum())


def class_counts(confusion: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    """Per slice and class: ``tp``, ``support`` and ``predicted`` (the SQL ``class_counts``)."""
    w, zero = pl.col("w"), pl.lit(0.0)
    correct = pl.when(pl.col("true_class") == pl.col("predicted_class")).then(w).otherwise(zero)
    truths = confusion.select(*by, pl.col("true_class").alias("class"), tp=correct, support=w, predicted=zero)
    predictions = confusion.select(*by, pl.col("predicted_class").alias("class"), tp=zero, support=zero, predicted=w)
    sides = pl.concat([truths, predictions], how="vertical_relaxed")
    return sides.group_by([*by, "class"]).agg(pl.col("tp", "support", "predicted").sum())


def precision_terms(tp: pl.Expr, support: pl.Expr, predicted: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """precision_c = tp_c / predicted_c, as (numerator, denominator)."""
    return tp, predicted


def recall_terms(tp: pl.Expr, support: pl.Expr, predicted: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """recall_c = tp_c / support_c, as (numerator, denominator)."""
    return tp, support


def fscore_terms(tp: pl.Expr, support: pl.Expr, predicted: pl.Expr, beta: float) -> tuple[pl.Expr, pl.Expr]:
    """F_β,c = (1 + β²)·tp_c / (β²·support_c + predicted_c), as (numerator, denominator),
    taken as tp_c / (r·support_c + q·predicted_c) (``fscore_weights``: no overflow)."""
    r, q = fscore_weights(beta)
    return tp, r * support + q * predicted


def per_class_values(counts: pl.LazyFrame, beta: float) -> pl.LazyFrame:
    """The class counts with each class's ``precision``, ``recall`` and ``fscore`` (F_β),
    NULL where 0/0 (the SQL ``sql/multiclass/per_class.sql``)."""
    return counts.with_columns(
        precision=ratio(*precision_terms(*COUNTS)),
        recall=ratio(*recall_terms(*COUNTS)),
        fscore=ratio(*fscore_terms(*COUNTS, beta)),
    )


def averaged(numerator: pl.Expr, denominator: pl.Expr, support: pl.Expr, average: str) -> pl.Expr:
    """scikit-learn's average (``zero_division=np.nan``) of the per-class ratios
    numerator / denominator over one slice's classes; a class whose denominator is 0 has
    no value (NaN in scikit-learn, NULL here) and is left out of the average:

    * ``macro``: the mean of the defined per-class values;
    * ``weighted``: their mean weighted by support (a class's true weight); when every
      class with a value has support 0, their plain mean (scikit-learn's fallback);
    * ``micro``: Σ numerator / Σ denominator over all classes.

    NULL when no class has a value."""
    if average == "micro":
        return ratio(numerator.sum(), denominator.sum())
    per_class = ratio(numerator, denominator)
    if average == "macro":
        return per_class.mean()
    weights = support.filter(per_class.is_not_null()).sum()
    return pl.when(weights > 0).then((per_class * support).sum() / weights).otherwise(per_class.mean())


def used_tables(rows: pl.LazyFrame, by: Sequence[str]) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The confusion matrix (slices, ``true_class``, ``predicted_class``, ``w``) and the
    class counts of the used rows the polars engine gives an interval (one per used row,
    with its weight ``w``)."""
    confusion = rows.group_by([*by, *CLASS_KEYS]).agg(pl.col("w").sum())
    return confusion, class_counts(confusion, by)


def _share(numerator: str, denominator: str) -> str:
    return f"{numerator} / CAST(NULLIF({denominator}, 0) AS DOUBLE)"


# The per-class values and their derivatives in the cells' shares, for the delta
# method's interval (intervals/class_confusion_delta.py), as SQL over one class's shares
# tp, support and predicted and its value class_value: (value, δ, τ, π) with
# ∂m_k/∂q_ij = [i = j = k]·δ_k + [i = k]·τ_k + [j = k]·π_k.
# precision_k = tp_k / predicted_k
PRECISION_GRADIENT = (_share("tp", "predicted"), _share("1", "predicted"), "0", _share("-class_value", "predicted"))
# recall_k = tp_k / support_k
RECALL_GRADIENT = (_share("tp", "support"), _share("1", "support"), _share("-class_value", "support"), "0")


def fscore_gradient(r: str, q: str) -> tuple[str, str, str, str]:
    """F_k = tp_k / (r·support_k + q·predicted_k), ``r`` and ``q`` SQL (``fscore_weights``)."""
    d = f"({r} * support + {q} * predicted)"
    return _share("tp", d), _share("1", d), _share(f"-{r} * class_value", d), _share(f"-{q} * class_value", d)


def averaged_gradient(
    value: str, diagonal: str, true: str, predicted: str, average: str = "{{ average }}"
) -> tuple[str, str, str, str]:
    """The class terms of the gradient of a per-class value (``value`` and its
    derivatives δ, τ, π: see ``PRECISION_GRADIENT``) averaged as ``averaged`` does, for
    ``class_confusion_delta`` (``average`` is SQL: the parameter, or a literal):

    * ``macro``: (1/K)·Σ_k m_k over the K classes with a value, whose gradient is each
      term over K;
    * ``weighted``: Σ_k s_k·m_k / S over those classes, S = Σ s_k their support (which
      depends on the shares: ∂s_k/∂q_ij = [i = k]), so the true term gains
      (m_k − f)/S; while S = 0 the metric is their plain mean (``macro``'s terms);
    * ``micro``: Σ tp / n, accuracy: 1 on the diagonal.

    A class without a value adds nothing."""
    terms = []
    for side, term, micro in (("diagonal", diagonal, "1"), ("true", true, "0"), ("predicted", predicted, "0")):
        weighted = f"support * {term}" + (" + class_value - covered_mean" if side == "true" else "")
        terms.append(
            f"CASE WHEN {average} = 'micro' THEN {micro} WHEN class_value IS NULL THEN 0 "
            f"WHEN {average} = 'weighted' AND covered > 0 THEN {_share(f'({weighted})', 'covered')} "
            f"ELSE {_share(term, 'classes')} END"
        )
    return (value, *terms)


def class_interval(value: str, g_diagonal: str, g_true: str, g_predicted: str) -> Interval:
    """The delta method's interval (``class_confusion_delta``) of a metric of the
    confusion matrix with these class terms of its gradient."""
    return class_confusion_delta(value, g_diagonal, g_true, g_predicted, used_tables)


def class_rows(data: Frame, *, label: str, prediction: str, weight: str | None, by: Sequence[str]) -> Frame:
    """The used rows of ``data`` as ``class_confusion`` reads them (the slices ``by`` under
    their canonical names, ``slice_names``; ``true_class``, ``predicted_class``, ``n`` = 1,
    ``w``): rows with a NULL label, prediction or weight are left out."""
    schema = data.collect_schema()
    check_classes(label, str(schema[label]), prediction, str(schema[prediction]))
    return data.filter(*(pl.col(c).is_not_null() for c in (label, prediction, weight) if c is not None)).select(
        *(pl.col(column).alias(name) for column, name in zip(by, slice_names(by))),
        pl.col(label).alias("true_class"),
        pl.col(prediction).alias("predicted_class"),
        n=pl.lit(1, pl.Int64),
        w=pl.lit(1.0) if weight is None else pl.col(weight).cast(pl.Float64),
    )


def per_slice(
    data: Frame,
    metric: pl.Expr,
    *,
    label: str,
    prediction: str,
    weight: str | None,
    by: Sequence[str],
) -> Frame:
    """``metric`` (an aggregation over class counts) for every slice of ``by`` of
    ``data``: rows with a NULL label, prediction or weight are left out first."""
    rows, slices = class_rows(data, label=label, prediction=prediction, weight=weight, by=by), slice_names(by)
    counts = class_counts(class_confusion(rows, slices), slices)
    if not by:
        return counts.select(metric)
    return counts.group_by(slices).agg(metric).rename(dict(zip(slices, by))).sort(list(by), nulls_last=True)
