"""Shared pieces of the binary-classification metrics' polars forms.

Every polars expression here mirrors its SQL template: rows are reduced to a positive
weight ``w_pos = w·[y = 1]`` and a negative weight ``w_neg = w·[y = 0]``, exactly the two
columns of ``score_hist``. A row with a NULL score, label or weight gets weight 0, so it
counts for nothing (``sm.evaluate`` also reports how many such rows it excluded).
"""

from __future__ import annotations

import polars as pl

from sqlmetrics.spec import Param, finite

IntoExpr = str | pl.Expr

THRESHOLD = Param(
    "threshold",
    float,
    0.5,
    "a score >= threshold predicts the positive class",
    rule=finite,
    rule_text="must be a finite number",
)


def col(value: IntoExpr) -> pl.Expr:
    return pl.col(value) if isinstance(value, str) else value


def binary_weights(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """``(score, w_pos, w_neg)`` as Float64 expressions; NULL rows weigh 0."""
    s, y = col(score).cast(pl.Float64), col(label).cast(pl.Float64)
    present = s.is_not_null() & y.is_not_null()
    if weight is None:
        w = present.cast(pl.Float64)
    else:
        w = col(weight).cast(pl.Float64)
        w = pl.when(present & w.is_not_null()).then(w).otherwise(0.0)
    return s, w * (y == 1).cast(pl.Float64), w * (y == 0).cast(pl.Float64)


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator, NULL (never inf or NaN) when the denominator is 0."""
    return pl.when(denominator != 0).then(numerator / denominator)


def confusion(
    score: IntoExpr, label: IntoExpr, weight: IntoExpr | None, threshold: float
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """The weighted ``(tp, fp, tn, fn)`` at ``threshold`` (score >= threshold predicts 1)."""
    s, w_pos, w_neg = binary_weights(score, label, weight)
    predicted = (s >= threshold).fill_null(False)
    return (
        pl.when(predicted).then(w_pos).otherwise(0.0).sum(),
        pl.when(predicted).then(w_neg).otherwise(0.0).sum(),
        pl.when(predicted).then(0.0).otherwise(w_neg).sum(),
        pl.when(predicted).then(0.0).otherwise(w_pos).sum(),
    )
