"""logloss_uncertainty: the entropy of the slice's base rate, the logloss of predicting it."""

from __future__ import annotations

import math

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights, ratio
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="logloss_uncertainty",
    score_rounding="unchanged",
    family="classification",
    polars_form="histogram",
    summary="−ō·ln ō − (1 − ō)·ln(1 − ō), ō = Σ w·y / Σ w: the log score's uncertainty term",
    template="classification/logloss_uncertainty.sql",
    intermediates=("score_hist",),
    score_domain="probability",
    higher_is_better=None,
    range=(0.0, math.log(2)),
    reference="scipy.stats.entropy([ō, 1 − ō])",
)


def _entropy_term(rate: pl.Expr) -> pl.Expr:
    """−r·ln r, 0 at r = 0 (NULL stays NULL)."""
    return pl.when(rate > 0).then(-rate * rate.log()).when(rate == 0).then(0.0)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """logloss_uncertainty from each score's positive and negative weight (rows or a histogram)."""
    total = (w_pos + w_neg).sum()
    return _entropy_term(ratio(w_pos.sum(), total)) + _entropy_term(ratio(w_neg.sum(), total))


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """logloss_uncertainty = −ō·ln ō − (1 − ō)·ln(1 − ō), ō = Σ w·y / Σ w: the entropy
    (nats) of the slice's base rate, the logloss of predicting it and the uncertainty term
    of the log score's decomposition (logloss_reliability − logloss_resolution +
    logloss_uncertainty is the binned logloss); ``ne`` divides by it. 0 for a one-class
    slice; NULL when the slice's weight is 0.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.8, 0.4, 0.3, 0.1], "label": [1, 1, 0, 0]})
    >>> round(df.select(smp.logloss_uncertainty("score", "label")).item(), 12)  # ln 2
    0.69314718056
    """
    return from_histogram(*binary_weights(score, label, weight))
