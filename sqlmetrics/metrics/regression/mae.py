"""mae: the mean absolute error."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.residual_mean import residual_mean
from sqlmetrics.metrics.classification._binary import IntoExpr
from sqlmetrics.metrics.regression._residuals import residual_weights, weighted_mean
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="mae",
    family="regression",
    polars_form="rows",
    summary="Σ w·|ŷ − y| / Σ w",
    template="regression/mae.sql",
    intermediates=("residuals",),
    label_domain="real",
    score_domain="finite",
    higher_is_better=False,
    range=(0.0, float("inf")),
    reference="sklearn.metrics.mean_absolute_error",
    interval=residual_mean("ABS(score - label)"),
)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """MAE = Σ w·|ŷ − y| / Σ w, with ŷ the score and y the label (the target).

    NULL on an empty slice (or one whose weights are all 0).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"prediction": [2.5, 0.0, 2.0], "target": [3.0, -0.5, 2.0]})
    >>> df.select(smp.mae("prediction", "target")).item()  # (0.5 + 0.5 + 0) / 3
    0.3333333333333333
    """
    e, _, w = residual_weights(score, label, weight)
    return weighted_mean(e.abs(), w)
