"""brier_uncertainty: ō·(1 − ō), the Brier score of predicting the slice's base rate."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights, ratio
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="brier_uncertainty",
    score_rounding="unchanged",
    family="classification",
    polars_form="histogram",
    summary="ō·(1 − ō), ō = Σ w·y / Σ w: Murphy's uncertainty term",
    template="classification/brier_uncertainty.sql",
    intermediates=("score_hist",),
    score_domain="probability",
    higher_is_better=None,
    range=(0.0, 0.25),
    reference="numpy: mean(y) * (1 - mean(y)) (Murphy 1973)",
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """brier_uncertainty from each score's positive and negative weight (rows or a histogram)."""
    total = (w_pos + w_neg).sum()
    return ratio(w_pos.sum(), total) * ratio(w_neg.sum(), total)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """brier_uncertainty = ō·(1 − ō), ō = Σ w·y / Σ w: the uncertainty term of Murphy's
    decomposition of the Brier score, the score of predicting the base rate; the same for
    every binning (brier_reliability − brier_resolution + brier_uncertainty is the binned
    Brier score). Scores must be probabilities (they are not otherwise read). NULL when
    the slice's weight is 0.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.8, 0.4, 0.3, 0.1], "label": [1, 0, 0, 0]})
    >>> df.select(smp.brier_uncertainty("score", "label")).item()  # ¼ · ¾
    0.1875
    """
    return from_histogram(*binary_weights(score, label, weight))
