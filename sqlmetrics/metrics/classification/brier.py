"""brier: the mean squared error of the predicted probabilities."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.row_mean import row_mean
from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights, ratio
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="brier",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="Σ w·(p − y)² / Σ w",
    template="classification/brier.sql",
    intermediates=("score_hist",),
    score_domain="probability",
    higher_is_better=False,
    reference="sklearn.metrics.brier_score_loss",
    interval=row_mean("(1 - score) * (1 - score)", "score * score"),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """brier from each score's positive and negative weight (rows or a histogram)."""
    return ratio((w_pos * (1 - s) ** 2 + w_neg * s**2).sum(), (w_pos + w_neg).sum())


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """brier = Σ w·(p − y)² / Σ w; scores must be probabilities. NULL on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.2], "label": [1, 0]})
    >>> round(df.select(smp.brier("score", "label")).item(), 12)  # (0.1² + 0.2²) / 2
    0.025
    """
    return from_histogram(*binary_weights(score, label, weight))
