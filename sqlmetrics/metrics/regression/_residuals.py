"""Shared pieces of the regression metrics' polars forms.

Every regression module has ``expr(score, label, weight=None)``, the public polars
expression over rows, which the polars engine also evaluates on the used rows of each
slice (all regression metrics of a call in one ``group_by().agg``). Its SQL template
reads ``residuals``: the same sums, taken once in ``base``.

The residual is ``e = score − label``, the prediction minus the target. A row with a
NULL score, label or weight gets a NULL weight, so it counts for nothing (``sm.evaluate``
reports how many such rows it excluded).
"""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr, col


def residual_weights(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """``(e, y, w)`` as Float64 expressions: the residual, the target and the row weight,
    which is NULL for a row with a NULL score, label or weight."""
    s, y = col(score).cast(pl.Float64), col(label).cast(pl.Float64)
    present = s.is_not_null() & y.is_not_null()
    w = pl.lit(1.0) if weight is None else col(weight).cast(pl.Float64)
    return s - y, y, pl.when(present).then(w)


def weighted_mean(values: pl.Expr, w: pl.Expr) -> pl.Expr:
    """Σ w·v / Σ w over the rows with a weight; NULL when that is 0 (an empty slice)."""
    total = w.sum()
    return pl.when(total != 0).then((w * values).sum() / total)
