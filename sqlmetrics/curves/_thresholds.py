"""The thresholds of the ROC and precision–recall curves in polars (``sql/curves/thresholds.sql``)."""

from __future__ import annotations

import polars as pl


def thresholds(hist: pl.DataFrame, slices: list[str]) -> pl.LazyFrame:
    """One row per slice and distinct score of positive weight, numbered from the highest
    score down (point 1 .. points), with its weights, the next lower score's weights
    (next_w_pos, next_w_neg), the running tp and fp, and the slice's positives and
    negatives."""
    descending = [False] * len(slices) + [True]
    return (
        hist.lazy()
        .filter(pl.col("w") > 0)
        .sort([*slices, "score"], descending=descending, nulls_last=True)
        .with_columns(
            point=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(slices),
            next_w_pos=pl.col("w_pos").shift(-1).over(slices),
            next_w_neg=pl.col("w_neg").shift(-1).over(slices),
            tp=pl.col("w_pos").cum_sum().over(slices),
            fp=pl.col("w_neg").cum_sum().over(slices),
        )
        .with_columns(
            points=pl.col("point").max().over(slices),
            positives=pl.col("tp").max().over(slices),
            negatives=pl.col("fp").max().over(slices),
        )
    )


def leading_point(thresholds: pl.LazyFrame, slices: list[str], **columns: pl.Expr) -> pl.LazyFrame:
    """Each slice's point 0 (threshold +inf: nothing predicted positive) with ``columns``."""
    return thresholds.filter(pl.col("point") == 1).select(
        *slices, point=pl.lit(0, pl.Int64), threshold=pl.lit(float("inf")), **columns
    )


def is_end() -> pl.Expr:
    """The first or the last threshold of the slice: always kept."""
    point = pl.col("point")
    return (point == 1) | (point == pl.col("points"))
