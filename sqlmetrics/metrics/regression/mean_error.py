"""mean_error: the bias, the mean signed error."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.residual_mean import residual_mean
from sqlmetrics.metrics.classification._binary import IntoExpr
from sqlmetrics.metrics.regression._residuals import residual_weights, weighted_mean
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="mean_error",
    family="regression",
    polars_form="rows",
    summary="Σ w·(ŷ − y) / Σ w (bias; > 0 over-predicts)",
    template="regression/mean_error.sql",
    intermediates=("residuals",),
    label_domain="real",
    score_domain="finite",
    higher_is_better=None,
    range=None,
    reference="numpy.average(y_pred - y_true, weights=w)",
    interval=residual_mean("score - label"),
)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """ME = Σ w·(ŷ − y) / Σ w: the prediction minus the target, averaged.

    Positive when the model over-predicts on average, 0 when it is unbiased (which
    says nothing of its error: see ``mae``). NULL on an empty slice (or one whose weights
    are all 0).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"prediction": [2.5, 0.0, 4.0], "target": [3.0, -0.5, 2.0]})
    >>> df.select(smp.mean_error("prediction", "target")).item()  # (−0.5 + 0.5 + 2) / 3
    0.6666666666666666
    """
    e, _, w = residual_weights(score, label, weight)
    return weighted_mean(e, w)
