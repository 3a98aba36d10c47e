"""fn: the weighted count of positives predicted negative (label 1, score < threshold)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import THRESHOLD, IntoExpr, binary_weights, confusion
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="fn",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="weighted count of positives predicted negative (label 1, score < threshold)",
    template="classification/fn.sql",
    intermediates=("confusion",),
    params=(THRESHOLD,),
    higher_is_better=False,
    range=None,
    weight_count=True,
    reference="sklearn.metrics.confusion_matrix",
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, threshold: float = 0.5) -> pl.Expr:
    """fn from each score's positive and negative weight (rows or a histogram)."""
    return confusion(s, w_pos, w_neg, threshold)[3]


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, threshold: float = 0.5) -> pl.Expr:
    """The weighted count of positives predicted negative: Σ w·[label 1, score < threshold].

    Without weights it is a row count (as a float, like every weighted count). Rows with
    a NULL score, label or weight count for nothing.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.7], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.fn("score", "label")).item()  # none
    0.0
    """
    return from_histogram(*binary_weights(score, label, weight), threshold=threshold)
