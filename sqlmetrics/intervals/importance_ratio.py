"""The interval of a self-normalized off-policy estimator (snips, sndr;
``sql/intervals/importance_ratio.sql``) by the delta method: V = Σ k·c / W + Σ k·a / Σ k·b
of each row's offset c, numerator a and denominator b (SQL over ``input``'s columns:
snips c = 0, a = w·r, b = w; sndr c = q̂ₑ, a = w·(r − q̂ₐ), b = w), each row's influence
u = (c − c̄) + (a − R·b) / b̄, se² = Σ k·u² / (W·(W − 1)), the normal interval. It reads the
rows (the influences are about the slice's own ratio), so a state does not keep it."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.row_mean import influence_spread
from sqlmetrics.spec import Interval, MetricCall


def importance_ratio(offset: str, numerator: str, denominator: str) -> Interval:
    """The delta-method interval of Σ k·offset / W + Σ k·numerator / Σ k·denominator."""
    return Interval(
        "importance_ratio",
        "intervals/importance_ratio.sql",
        "delta method",
        comparison="delta method",
        values=(("offset", offset), ("numerator", numerator), ("denominator", denominator)),
        polars=importance_ratio_polars,
    )


def importance_ratio_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """importance_ratio.sql over the used rows, the values read by polars' SQL expression
    parser from the same declaration."""
    values = dict(call.spec.interval.values)
    w = pl.col("w")
    c, a, b = (pl.sql_expr(values[name]).cast(pl.Float64) for name in ("offset", "numerator", "denominator"))
    valued = rows.filter(w.is_not_null()).select(*slices, "w", c=c, a=a, b=b)
    total = w.sum()
    means = valued.group_by(slices).agg(
        total=total,
        c_mean=(w * pl.col("c")).sum() / total,
        ratio=(w * pl.col("a")).sum() / (w * pl.col("b")).sum(),
        b_mean=(w * pl.col("b")).sum() / total,
    )
    kept = means.filter((pl.col("total") > 1) & (pl.col("b_mean") != 0))
    influence = (pl.col("c") - pl.col("c_mean")) + (pl.col("a") - pl.col("ratio") * pl.col("b")) / pl.col("b_mean")
    influences = valued.join(kept, on=slices, nulls_equal=True).select(*slices, "w", u=influence)
    return influence_spread(influences, slices)
