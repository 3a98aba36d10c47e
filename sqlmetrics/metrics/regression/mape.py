"""mape: the mean absolute percentage error, rows with a zero target left out."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.residual_mean import residual_mean
from sqlmetrics.metrics.classification._binary import IntoExpr
from sqlmetrics.metrics.regression._residuals import residual_weights, weighted_mean
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="mape",
    family="regression",
    polars_form="rows",
    summary="Σ w·|ŷ − y| / |y| / Σ w over rows with y ≠ 0 (as a fraction)",
    template="regression/mape.sql",
    intermediates=("residuals",),
    outputs=("skipped",),
    label_domain="real",
    score_domain="finite",
    higher_is_better=False,
    range=(0.0, float("inf")),
    reference="sklearn.metrics.mean_absolute_percentage_error on the rows with y != 0",
    interval=residual_mean("ABS((score - label) / CAST(label AS DOUBLE))", "label <> 0"),
)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """MAPE = Σ w·|ŷ − y| / |y| / Σ w over the rows whose target y ≠ 0, as a fraction.

    A zero target has no percentage error, so its rows are left out (``skipped`` counts
    them; ``sm.evaluate`` reports it as ``mape_skipped``). scikit-learn divides by
    max(|y|, ε) with ε = 2⁻⁵² instead, so one zero target makes its MAPE ~10¹⁶ times the
    error: on data without zero targets both agree. NULL when no row of positive weight
    has y ≠ 0.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"prediction": [90.0, 3.0, 5.0], "target": [100.0, 2.0, 0.0]})
    >>> df.select(smp.mape("prediction", "target")).item()  # (0.1 + 0.5) / 2, y = 0 left out
    0.3
    """
    e, y, w = residual_weights(score, label, weight)
    nonzero = y != 0
    return weighted_mean((e / y).abs().filter(nonzero), w.filter(nonzero))


def skipped(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """The number of rows left out of ``mape`` for a zero target (NULL rows not counted)."""
    _, y, w = residual_weights(score, label, weight)
    return (w.is_not_null() & (y == 0)).sum().cast(pl.Int64)
