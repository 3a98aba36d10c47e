"""r2: the coefficient of determination."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr
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
)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """R² = 1 − Σ w·(y − ŷ)² / Σ w·(y − ȳ)², with ȳ = Σ w·y / Σ w the target's mean.

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
    spread = (w * (y - weighted_mean(y, w)) ** 2).sum()
    targets = y.filter(w > 0)
    return pl.when(targets.min() < targets.max()).then(1 - (w * e * e).sum() / spread)
