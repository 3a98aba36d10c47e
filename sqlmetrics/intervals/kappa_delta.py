"""The delta method's interval of Cohen's κ (``sql/intervals/kappa_delta.sql``, the
gradient cell by cell, read by ``multinomial_delta.sql``): the confusion matrix's cell
shares are multinomial, and κ = 1 − O/E has the gradient g_ij = (O·(a_i + b_j) − d_ij·E) / E²
in them, so se² = Σ q·(g − ḡ)² / n, the large-sample variance of κ (Fleiss, Cohen &
Everitt, 1969), for any disagreement weights d; clustered by a unit
(``clustered_multinomial_delta.sql``), each unit's part Σ_ij n_k,ij·(g_ij − ḡ) / n, as
for the other metrics of the confusion matrix."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from sqlmetrics.intervals.class_confusion_delta import multinomial_delta, multinomial_se
from sqlmetrics.spec import Interval, MetricCall


def kappa_delta(cells: Callable[[MetricCall, pl.LazyFrame, list[str]], pl.LazyFrame]) -> Interval:
    """κ's interval, its polars form from ``cells(call, rows, slices)``: per slice every
    ordered pair of its classes with the disagreement ``d``, the true class's share ``t``,
    the predicted class's share ``p``, the pair's weight ``w`` (NULL when no row has it)
    and the slice's weight ``n`` (the metric builds them as its own value does)."""

    def gradients(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
        return kappa_cell_gradients(cells(call, rows, slices), slices)

    def spread(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
        return multinomial_se(gradients(call, rows, slices), slices, pl.col("expected").first() != 0)  # NULL as κ is

    return multinomial_delta("kappa_delta", (), spread, gradients)


def kappa_cell_gradients(cells: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """kappa_delta.sql over the cells (``d``, ``t``, ``p``, ``w``, ``n`` per pair of
    classes): each pair's share ``q`` and gradient ``g`` (NULL where E = 0), with the
    slice's ``expected`` disagreement E."""
    by = slices or None

    def per(*keys: str) -> list[str] | None:
        return [*slices, *keys] or None

    d, t, p = pl.col("d"), pl.col("t"), pl.col("p")
    q = pl.col("w").fill_null(0.0) / pl.col("n")
    cells = cells.with_columns(
        q=q,
        observed=(d * q).sum().over(by) if by else (d * q).sum(),
        expected=(d * t * p).sum().over(by) if by else (d * t * p).sum(),
        a=(d * p).sum().over(per("true_class")),
        b=(d * t).sum().over(per("predicted_class")),
    )
    expected = pl.col("expected")
    g = pl.when(expected != 0).then((pl.col("observed") * (pl.col("a") + pl.col("b")) - d * expected) / expected**2)
    return cells.with_columns(g=g)
