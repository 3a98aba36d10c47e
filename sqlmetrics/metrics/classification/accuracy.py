"""accuracy: the weighted share of rows whose predicted class equals the label."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.proportion import proportion
from sqlmetrics.metrics.classification._binary import THRESHOLD, IntoExpr, binary_weights, confusion, ratio
from sqlmetrics.spec import Metric, SumsOfRows

SPEC = Metric(
    name="accuracy",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="share of rows whose predicted class (score >= threshold) equals the label",
    template="classification/accuracy.sql",
    intermediates=("confusion",),
    params=(THRESHOLD,),
    # (tp + tn) / n: a ratio of sums over rows
    # (a bootstrap by unit sums each unit's)
    sums=SumsOfRows.ratio("CASE WHEN (score >= {{ threshold }}) = (label = 1) THEN 1 ELSE 0 END", "1"),
    reference="sklearn.metrics.accuracy_score",
    interval=proportion("tp + tn", "tp + fp + tn + fn"),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, threshold: float = 0.5) -> pl.Expr:
    """accuracy from each score's positive and negative weight (rows or a histogram)."""
    tp, fp, tn, fn = confusion(s, w_pos, w_neg, threshold)
    return ratio(tp + tn, tp + fp + tn + fn)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, threshold: float = 0.5) -> pl.Expr:
    """accuracy = (TP + TN) / (TP + FP + TN + FN), weighted; NULL on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.7], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.accuracy("score", "label")).item()  # TP 2, FP 1, TN 2, FN 0: 4/5
    0.8
    """
    return from_histogram(*binary_weights(score, label, weight), threshold=threshold)
