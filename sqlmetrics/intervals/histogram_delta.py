"""The delta method's interval of a smooth function of weighted means over the rows,
read from the score histogram (calibration; ``sql/intervals/histogram_delta.sql``):
se² = Σ w·u² / (W·(W − 1)) with u each row's influence on the metric (its gradient times
the row's values less their means), declared by the metric as SQL over ``score`` and
the slice's means for a positive and a negative row (read by polars through
``pl.sql_expr``)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.spec import Interval, MetricCall


def histogram_delta(means: dict[str, str], positive: str, negative: str) -> Interval:
    """The delta method's interval over the score histogram: ``means`` names each slice
    mean (SQL aggregates over ``score``, ``w_pos``, ``w_neg``), ``positive`` and
    ``negative`` are a positive and a negative row's influence (SQL over ``score`` and
    the means' names)."""
    listed = ", ".join(f"{sql} AS {name}" for name, sql in means.items())
    return Interval(
        "histogram_delta",
        "intervals/histogram_delta.sql",
        "delta method",
        comparison="delta method",
        values=(("means", listed), ("positive", positive), ("negative", negative), *means.items()),
        polars=histogram_delta_polars,
        reads_histogram=True,
    )


def histogram_delta_polars(call: MetricCall, hist: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """histogram_delta.sql over the score histogram (``score``, ``w_pos``, ``w_neg``)."""
    values = dict(call.spec.interval.values)
    means = {name: pl.sql_expr(values[name]) for name in values if name not in ("means", "positive", "negative")}
    w_pos, w_neg = pl.col("w_pos"), pl.col("w_neg")
    slice_means = hist.group_by(slices).agg(total=(w_pos + w_neg).sum(), **means).filter(pl.col("total") > 1)
    joined = hist.join(slice_means, on=slices, nulls_equal=True)
    u_pos, u_neg = pl.sql_expr(values["positive"]), pl.sql_expr(values["negative"])
    squares = (w_pos * u_pos * u_pos + w_neg * u_neg * u_neg).sum()
    total = pl.col("total").first()
    return joined.group_by(slices).agg(se=(squares / total / (total - 1)).sqrt(), df=pl.lit(None, pl.Int64))
