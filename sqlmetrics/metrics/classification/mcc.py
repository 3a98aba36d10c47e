"""mcc: the Matthews correlation coefficient of predicted and true classes."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import THRESHOLD, IntoExpr, binary_weights, confusion, ratio
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="mcc",
    family="classification",
    polars_form="histogram",
    summary="Matthews correlation coefficient of predicted (score >= threshold) and true class",
    template="classification/mcc.sql",
    intermediates=("confusion",),
    params=(THRESHOLD,),
    range=(-1.0, 1.0),
    reference="sklearn.metrics.matthews_corrcoef",
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, threshold: float = 0.5) -> pl.Expr:
    """mcc from each score's positive and negative weight (rows or a histogram); each
    count divided by their total first (the same value), so that no product of weights
    overflows or underflows."""
    counts = confusion(s, w_pos, w_neg, threshold)
    total = sum(counts)
    tp, fp, tn, fn = (ratio(count, total) for count in counts)
    return ratio(tp * tn - fp * fn, ((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)).sqrt())


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, threshold: float = 0.5) -> pl.Expr:
    """mcc = (TP·TN − FP·FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN)), weighted.

    NULL when any factor is 0: a constant prediction or a one-class slice (scikit-learn
    returns 0.0 there).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.7], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.mcc("score", "label")).item()  # (2·2 − 1·0) / sqrt(3·2·3·2) = 4/6
    0.6666666666666666
    """
    return from_histogram(*binary_weights(score, label, weight), threshold=threshold)
