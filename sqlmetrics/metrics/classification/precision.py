"""precision: the weighted share of predicted positives that are positive."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.proportion import proportion
from sqlmetrics.metrics.classification._binary import THRESHOLD, IntoExpr, binary_weights, confusion, ratio
from sqlmetrics.spec import Metric, SumsOfRows

SPEC = Metric(
    name="precision",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="TP / (TP + FP): share of predicted positives that are positive",
    template="classification/precision.sql",
    intermediates=("confusion",),
    params=(THRESHOLD,),
    # tp / (tp + fp): a ratio of sums over rows
    # (a bootstrap by unit sums each unit's)
    sums=SumsOfRows.ratio(
        "CASE WHEN label = 1 AND score >= {{ threshold }} THEN 1 ELSE 0 END",
        "CASE WHEN score >= {{ threshold }} THEN 1 ELSE 0 END",
    ),
    reference="sklearn.metrics.precision_score",
    interval=proportion("tp", "tp + fp"),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, threshold: float = 0.5) -> pl.Expr:
    """precision from each score's positive and negative weight (rows or a histogram)."""
    tp, fp, _, _ = confusion(s, w_pos, w_neg, threshold)
    return ratio(tp, tp + fp)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, threshold: float = 0.5) -> pl.Expr:
    """precision = TP / (TP + FP), weighted.

    NULL when nothing is predicted positive (scikit-learn warns and returns 0 there, or
    ``zero_division``).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.7], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.precision("score", "label")).item()  # TP 2, FP 1: 2/3
    0.6666666666666666
    """
    return from_histogram(*binary_weights(score, label, weight), threshold=threshold)
