"""rmse: the root mean squared error."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.residual_mean import residual_mean
from sqlmetrics.metrics.classification._binary import IntoExpr
from sqlmetrics.metrics.regression import mse
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="rmse",
    family="regression",
    polars_form="rows",
    summary="√(Σ w·(ŷ − y)² / Σ w)",
    template="regression/rmse.sql",
    intermediates=("residuals",),
    label_domain="real",
    score_domain="finite",
    higher_is_better=False,
    range=(0.0, float("inf")),
    reference="sklearn.metrics.root_mean_squared_error",
    # the delta method: se(√mse) = se(mse) / (2·√mse), undefined when every error is 0
    interval=residual_mean("(score - label) * (score - label)", slope="1 / CAST(2 * SQRT(NULLIF(mean, 0)) AS DOUBLE)"),
)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """RMSE = √(Σ w·(ŷ − y)² / Σ w), the square root of ``mse``, in the target's unit.

    NULL on an empty slice (or one whose weights are all 0).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"prediction": [3.0, 0.0], "target": [0.0, 4.0]})
    >>> df.select(smp.rmse("prediction", "target")).item()  # √((9 + 16) / 2)
    3.5355339059327378
    """
    return mse.expr(score, label, weight).sqrt()
