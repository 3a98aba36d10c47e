"""tn: the weighted count of negatives predicted negative (label 0, score < threshold)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import THRESHOLD, IntoExpr, binary_weights, confusion
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="tn",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="weighted count of negatives predicted negative (label 0, score < threshold)",
    template="classification/tn.sql",
    intermediates=("confusion",),
    params=(THRESHOLD,),
    higher_is_better=True,
    range=None,
    weight_count=True,
    reference="sklearn.metrics.confusion_matrix",
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, threshold: float = 0.5) -> pl.Expr:
    """tn from each score's positive and negative weight (rows or a histogram)."""
    return confusion(s, w_pos, w_neg, threshold)[2]


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, threshold: float = 0.5) -> pl.Expr:
    """The weighted count of negatives predicted negative: Σ w·[label 0, score < threshold].

    Without weights it is a row count (as a float, like every weighted count). Rows with
    a NULL score, label or weight count for nothing.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.7], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.tn("score", "label")).item()  # 0.4 and 0.2
    2.0
    """
    return from_histogram(*binary_weights(score, label, weight), threshold=threshold)
