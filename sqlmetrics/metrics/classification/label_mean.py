"""label_mean: the observed positive rate (click-through rate)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.row_mean import row_mean
from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights, ratio
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="label_mean",
    score_rounding="unchanged",
    family="classification",
    polars_form="histogram",
    summary="Σ w·y / Σ w: observed positive rate",
    template="classification/label_mean.sql",
    intermediates=("score_hist",),
    higher_is_better=None,
    reference="numpy.average(label, weights=w)",
    interval=row_mean("1", "0"),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """label_mean from each score's positive and negative weight (rows or a histogram)."""
    return ratio(w_pos.sum(), (w_pos + w_neg).sum())


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """label_mean = Σ w·y / Σ w over rows with a score; NULL on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.1, 0.3, 0.2, 0.4], "label": [0, 1, 0, 0]})
    >>> df.select(smp.label_mean("score", "label")).item()  # 1 of 4
    0.25
    """
    return from_histogram(*binary_weights(score, label, weight))
