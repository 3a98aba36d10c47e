"""logloss: the mean binary cross-entropy of the predicted probabilities."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.row_mean import row_mean
from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights, ratio
from sqlmetrics.spec import Metric

EPSILON = 2.220446049250313e-16  # float64 machine epsilon, scikit-learn's clip
CLIPPED = f"LEAST(GREATEST(score, {EPSILON!r}), 1 - {EPSILON!r})"  # p in SQL, as logloss.sql writes it

SPEC = Metric(
    name="logloss",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="−Σ w·(y·ln p + (1−y)·ln(1−p)) / Σ w, p clipped to [ε, 1−ε]",
    template="classification/logloss.sql",
    intermediates=("score_hist",),
    score_domain="probability",
    higher_is_better=False,
    range=(0.0, float("inf")),
    reference="sklearn.metrics.log_loss",
    interval=row_mean(f"-LN({CLIPPED})", f"-LN(1 - {CLIPPED})"),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """logloss from each score's positive and negative weight (rows or a histogram)."""
    p = s.clip(EPSILON, 1 - EPSILON)
    return ratio(-(w_pos * p.log() + w_neg * (1 - p).log()).sum(), (w_pos + w_neg).sum())


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """logloss = −Σ w·(y·ln p + (1 − y)·ln(1 − p)) / Σ w.

    p is the score clipped to [ε, 1 − ε] with ε = 2⁻⁵² (float64 machine epsilon, as
    scikit-learn's ``log_loss``), so a confident mistake costs at most −ln ε ≈ 36.04.
    Scores must be probabilities in [0, 1]; ``sm.evaluate`` rejects others.
    NULL on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.2], "label": [1, 0]})
    >>> df.select(smp.logloss("score", "label")).item()  # −(ln 0.9 + ln 0.8) / 2
    0.164252033486018
    """
    return from_histogram(*binary_weights(score, label, weight))
