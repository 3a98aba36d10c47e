"""max_error: the largest absolute error."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr
from sqlmetrics.metrics.regression._residuals import residual_weights
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="max_error",
    family="regression",
    polars_form="rows",
    summary="max |ŷ − y| over rows of weight > 0",
    template="regression/max_error.sql",
    intermediates=("residuals",),
    label_domain="real",
    score_domain="finite",
    higher_is_better=False,
    range=(0.0, float("inf")),
    reference="sklearn.metrics.max_error",
)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """max |ŷ − y| over the rows of weight > 0: a weight only decides whether a row
    counts (scikit-learn's ``max_error`` takes no weights). NULL on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"prediction": [9.0, 2.0, 7.0], "target": [3.0, 2.0, 7.5]})
    >>> df.select(smp.max_error("prediction", "target")).item()
    6.0
    """
    e, _, w = residual_weights(score, label, weight)
    return e.abs().filter(w > 0).max()
