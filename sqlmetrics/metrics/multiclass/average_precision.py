"""multiclass_average_precision: one-vs-rest average precision of every class, averaged (mAP)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from sqlmetrics.binding.class_scores import LongClassScores
from sqlmetrics.metrics.classification import average_precision
from sqlmetrics.metrics.multiclass._ovr import OVR_AVERAGE, Frame, per_slice
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="multiclass_average_precision",
    family="multiclass",
    polars_form="class_histogram",
    summary="one-vs-rest average precision of each class c (by c's score), averaged: macro (mAP) or weighted",
    template="multiclass/average_precision.sql",
    intermediates=("class_score_cum",),
    needs=("label", "class_scores"),
    params=(OVR_AVERAGE,),
    outputs=("classes", "skipped"),
    label_domain="class",
    reference="sklearn.metrics.average_precision_score(label_binarize(y))",
)


def from_class_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """AP_c of one class's score histogram: the binary ``average_precision.from_histogram``."""
    return average_precision.from_histogram(s, w_pos, w_neg)


def frame(
    data: Frame,
    *,
    label: str,
    class_scores: Mapping[Any, str] | LongClassScores,
    weight: str | None = None,
    by: Sequence[str] = (),
    average: str = "macro",
) -> Frame:
    """One-vs-rest average precision, scikit-learn's
    ``average_precision_score(label_binarize(y, classes=classes), scores, average=...,
    sample_weight=w)`` (the mean average precision, mAP, with ``average="macro"``):

        AP_c = Σ_t (R_t − R_{t−1})·P_t = Σ_t w⁺_c(t)·TP_t / (TP_t + FP_t) / W⁺_c

    for every class c, over c's distinct scores t from the highest down (the binary
    ``average_precision`` of "true class is c" against c's score; tied scores form one
    threshold). ``average="macro"`` is the mean of AP_c over the classes,
    ``"weighted"`` weighs AP_c by the class's true weight W⁺_c (its prevalence). A class
    whose rows all lie on one side (no positive or no negative weight in the slice) has
    no AP (scikit-learn gives 0 without positives and 1 without negatives): it is left
    out of the average and counted in ``average_precision_skipped``;
    ``average_precision_classes`` counts the classes averaged. NULL when no class has one.

    ``class_scores`` is ``{class: score column}`` (wide) or
    ``sm.long_scores(table, row_id=..., class_=..., score=...)`` (long); the classes are
    its keys or the table's distinct classes. Rows with a NULL label, weight or class
    score are left out. Unlike ``sm.evaluate``, nothing is validated.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["a", "b", "c", "a"],
    ...                    "p_a": [0.6, 0.3, 0.2, 0.3], "p_b": [0.2, 0.4, 0.4, 0.4], "p_c": [0.2, 0.3, 0.4, 0.3]})
    >>> # a: .6 (1 of 1 right), then .3 (2 of 3): (1 + 2/3) / 2; b: .4 (1 of 3): 1/3; c: .4 first: 1
    >>> scores = {"a": "p_a", "b": "p_b", "c": "p_c"}
    >>> value, classes, skipped = smp.multiclass_average_precision(df, label="y", class_scores=scores).row(0)
    >>> round(value, 12), classes, skipped
    (0.722222222222, 3, 0)
    """
    average = OVR_AVERAGE.validate(SPEC.name, average)
    return per_slice(
        data, from_class_histogram, "average_precision",
        label=label, class_scores=class_scores, weight=weight, by=by, average=average,
    )  # fmt: skip
