"""Intervals clustered by a unit column (``ci_unit=``; ``sql/intervals/clustered.sql``):
the rows of a unit (a user's impressions) may be correlated, the units are independent.
Each method with a clustered form (``Interval.clustered``) gives every unit's part of its
linearization, s_k = Σ_{i in k} w_i·u_i / W with u each row's influence, and

    se² = C / (C − 1) · Σ_k s_k²

over the slice's C units: the linearization (sandwich) variance, the normal interval.
This module holds what the methods share: the parts summed in polars."""

from __future__ import annotations

import polars as pl

from sqlmetrics.spec import MetricCall


def clustered_spread_polars(
    call: MetricCall, rows: pl.LazyFrame, slices: list[str], pair: str | None = None
) -> pl.LazyFrame:
    """clustered.sql over the call's units' parts (its ``Interval.clustered`` polars form,
    from the used rows with their ``unit_id``, or for a mean over queries from its
    queries with theirs): per slice ``se``, NULL where a part is, and no row for a slice
    of fewer than two units. ``pair``: the slice of two paired scores (1, 2), whose
    difference's spread is given on the rows of 2 (clustered_paired.sql: each unit's
    parts under the second score less those under the first)."""
    parts = call.spec.interval.clustered.polars(call, rows, slices)
    if pair is not None:
        signed = pl.when(pl.col(pair) == 2).then(pl.col("part")).otherwise(-pl.col("part"))
        parts = parts.with_columns(signed, pl.lit(2, pl.Int32).alias(pair))
    part = pl.col("part")
    units = parts.group_by(*slices, "unit_id").agg(s=pl.when(part.null_count() == 0).then(part.sum()))
    count, s = pl.len().cast(pl.Float64), pl.col("s")
    se = pl.when(s.null_count() == 0).then((count / (count - 1) * (s * s).sum()).sqrt())
    spread = units.group_by(slices).agg(se=se, df=pl.lit(None, pl.Int64), units=pl.len())
    return spread.filter(pl.col("units") > 1).drop("units")
