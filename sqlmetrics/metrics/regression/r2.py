"""r2: the coefficient of determination."""

from __future__ import annotations

import math

import polars as pl

from sqlmetrics.intervals.r2_delta import r2_delta
from sqlmetrics.metrics.classification._binary import IntoExpr, col
from sqlmetrics.metrics.regression._residuals import residual_weights, weighted_mean
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="r2",
    family="regression",
    polars_form="rows",
    summary="1 − Σ w·(y − ŷ)² / Σ w·(y − ȳ)²",
    template="regression/r2.sql",
    intermediates=("residuals",),
    label_domain="real",
    score_domain="finite",
    range=(float("-inf"), 1.0),
    reference="sklearn.metrics.r2_score",
    interval=r2_delta(),
)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """R² = 1 − Σ w·(y − ŷ)² / Σ w·(y − ȳ)², with ȳ = Σ w·y / Σ w the target's mean.

    Both sums are taken over values multiplied by a power of two that brings the largest
    |y| and the largest |e| near 1 (exact), and scaled back in their ratio: R² does not
    change when target and prediction are multiplied by the same constant, and targets
    near 1e-160 or 1e300 give it to the last digit instead of squares that underflow or
    overflow.

    1 for a perfect prediction, 0 for predicting ȳ everywhere, negative for worse. NULL
    when the targets of positive weight are all equal (the ratio is undefined;
    scikit-learn returns 1.0 or 0.0 there, nan or −inf with ``force_finite=False``) and
    on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"prediction": [1.0, 2.0, 4.0], "target": [1.0, 3.0, 5.0]})
    >>> df.select(smp.r2("prediction", "target")).item()  # 1 − (0 + 1 + 1) / (4 + 0 + 4)
    0.75
    """
    e, y, w = residual_weights(score, label, weight)
    s = col(score).cast(pl.Float64)
    used = w > 0
    spread_unit = unit_of(y.abs().filter(used).max())
    error_unit = unit_of(e.abs().filter(used).max())
    errors_finite = e.abs().filter(used).max().is_finite()
    scaled_errors = pl.when(errors_finite).then(e * error_unit).otherwise(s * error_unit - y * error_unit)
    scaled_squared_error = (w * scaled_errors * scaled_errors).sum()
    scaled_targets = y * spread_unit
    scaled_spread = (w * (scaled_targets - weighted_mean(scaled_targets, w)) ** 2).sum()
    targets = y.filter(used)
    targets_differ = targets.min() < targets.max()
    return (
        pl.when(targets_differ & (scaled_squared_error == 0))
        .then(1.0)
        .when(targets_differ)
        .then(1 - scaled_squared_error / scaled_spread * (spread_unit / error_unit) * (spread_unit / error_unit))
    )


def unit_of(magnitude: pl.Expr) -> pl.Expr:
    """2^−⌊log2 m⌋ for a magnitude m: multiplying by it is exact and brings m near 1. The
    exponent is kept within −1022 .. 1023: an infinite m counts as the largest double, and
    m = 0 (or a subnormal m) gives 2^1022."""
    exponent = (magnitude.clip(1e-308, 1e308).log() / math.log(2.0)).floor().clip(-1022, 1023)
    return pl.lit(2.0).pow(-exponent)
