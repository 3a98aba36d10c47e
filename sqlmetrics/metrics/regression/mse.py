"""mse: the mean squared error."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.residual_mean import residual_mean
from sqlmetrics.metrics.classification._binary import IntoExpr
from sqlmetrics.metrics.regression._residuals import residual_weights, weighted_mean
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="mse",
    family="regression",
    polars_form="rows",
    summary="Σ w·(ŷ − y)² / Σ w",
    template="regression/mse.sql",
    intermediates=("residuals",),
    label_domain="real",
    score_domain="finite",
    higher_is_better=False,
    range=(0.0, float("inf")),
    reference="sklearn.metrics.mean_squared_error",
    interval=residual_mean("(score - label) * (score - label)"),
)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """MSE = Σ w·(ŷ − y)² / Σ w, with ŷ the score and y the label (the target).

    NULL on an empty slice (or one whose weights are all 0).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"prediction": [2.5, 0.0, 2.0], "target": [3.0, -0.5, 1.0]})
    >>> df.select(smp.mse("prediction", "target")).item()  # (0.25 + 0.25 + 1) / 3
    0.5
    """
    e, _, w = residual_weights(score, label, weight)
    return weighted_mean(e * e, w)
