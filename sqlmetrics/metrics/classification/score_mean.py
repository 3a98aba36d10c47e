"""score_mean: the mean predicted score."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.row_mean import row_mean
from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights, ratio
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="score_mean",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="Σ w·p / Σ w: mean predicted score",
    template="classification/score_mean.sql",
    intermediates=("score_hist",),
    score_domain="finite",
    higher_is_better=None,
    range=None,
    reference="numpy.average(score, weights=w)",
    interval=row_mean("score", "score"),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """score_mean from each score's positive and negative weight (rows or a histogram)."""
    return ratio(((w_pos + w_neg) * s).sum(), (w_pos + w_neg).sum())


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """score_mean = Σ w·p / Σ w over rows with a label; NULL on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.1, 0.3, 0.2, 0.4], "label": [0, 1, 0, 0]})
    >>> round(df.select(smp.score_mean("score", "label")).item(), 12)  # 1.0 / 4
    0.25
    """
    return from_histogram(*binary_weights(score, label, weight))
