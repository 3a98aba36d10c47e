"""The spread of a (weighted) mean over queries in polars, for the metrics whose
polars form averages per-query values (gauc, the ranking metrics): the formula of
``sql/intervals/query_mean.sql`` (see ``sqlmetrics.intervals``)."""

from __future__ import annotations

import polars as pl


def spread_expr(value: pl.Expr, weight: pl.Expr | None = None) -> tuple[pl.Expr, pl.Expr]:
    """``se`` and ``df`` of the weighted mean of ``value`` over the rows where it is not
    NULL (query_mean.sql's formula); NULL below two values."""
    used = value.is_not_null()
    x = value.filter(used)
    g = pl.lit(1.0) if weight is None else weight.filter(used).cast(pl.Float64)
    n = used.sum().cast(pl.Float64)
    total = g.sum() if weight is not None else n
    mean = (g * x).sum() / total
    squares = (g * g * (x - mean) * (x - mean)).sum()
    se = pl.when(n > 1).then((n / (n - 1) * squares).sqrt() / total)
    df = pl.when(n > 1).then(n - 1).cast(pl.Int64)
    return se, df
