"""The interval of a weighted mean of a value of each row's prediction and target (mae,
mse, mean_error, mape; ``sql/intervals/residual_mean.sql``), or of a smooth function of
that mean by the delta method (rmse = √mse: se / (2·√mse)), the normal interval; and
of the difference of two paired scores' (``sql/intervals/paired_residual_mean.sql``):
each row's influence d = f'(m₂)·(x₂ − m₂) − f'(m₁)·(x₁ − m₁), se² = Σ w·d² / (W·(W − 1))."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.row_mean import (
    CLUSTERED_MEAN,
    first_score_rows,
    influence_spread,
    on_second_score,
    weighted_mean_spread,
    weighted_spreads,
)
from sqlmetrics.spec import Interval, KeptSpread, MetricCall, PairedInterval

SPREAD_STEP = "spread"  # the step of W, m and Σ w·(x − m)² per slice: what a state keeps, a roll-up merges


def residual_mean(value: str, where: str = "TRUE", slope: str = "1") -> Interval:
    """The interval of a weighted mean of each row's value, given as SQL over ``score``
    (the prediction) and ``label`` (the target), over the rows where ``where`` holds, or
    of a function of that mean whose derivative is ``slope`` (SQL over ``mean``: the
    delta method), ``where`` over ``label`` alone (its paired form evaluates it once for
    both scores). Both engines read the same SQL (polars through ``pl.sql_expr``)."""
    method = "mean over rows" if slope == "1" else "delta method"
    return Interval(
        "residual_mean",
        "intervals/residual_mean.sql",
        method,
        comparison=method,
        values=(("value", value), ("where", where), ("slope", slope)),
        steps=((SPREAD_STEP, "intervals/residual_spread.sql"),),
        polars=residual_mean_polars,
        clustered=CLUSTERED_MEAN,
        kept=KeptSpread(SPREAD_STEP, "intervals/merged_residual_spread.sql", residual_spread_polars),
        paired=PairedInterval(
            "intervals/paired_residual_mean.sql",
            f"paired, normal: {method}",
            over_rows=True,
            polars=paired_residual_mean_polars,
        ),
    )


def residual_mean_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """residual_mean.sql over the used rows; the value, the rows it is taken over and the
    delta method's slope are the interval's SQL, read by polars' SQL expression parser."""
    values = dict(call.spec.interval.values)
    kept = rows.filter(pl.sql_expr(values["where"]))
    weighted_values = kept.select(*slices, "w", x=pl.sql_expr(values["value"]).cast(pl.Float64))
    return weighted_mean_spread(weighted_values, slices, pl.sql_expr(values["slope"]).cast(pl.Float64))


def residual_spread_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """residual_spread.sql over the used rows: per slice of W > 0, ``total`` (W), ``mean``
    and ``spread`` (Σ w·(x − mean)²) of the interval's value x (a state's part)."""
    values = dict(call.spec.interval.values)
    kept = rows.filter(pl.col("w").is_not_null() & pl.sql_expr(values["where"]))
    return weighted_spreads(kept.select(*slices, "w", x=pl.sql_expr(values["value"]).cast(pl.Float64)), slices)


def paired_residual_mean_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame:
    """paired_residual_mean.sql over the used rows of two paired scores (the slice
    ``pair`` says which, 1 or 2; each row of 1 carries ``score_1`` and ``score_2``): per
    slice ``se`` of the difference of the two metrics, on the rows of 2."""
    values = dict(call.spec.interval.values)
    used, groups = first_score_rows(rows, slices, pair)
    value, slope, w = pl.sql_expr(values["value"]).cast(pl.Float64), pl.sql_expr(values["slope"]), pl.col("w")
    kept = used.filter(pl.sql_expr(values["where"]))
    valued = kept.with_columns(score=pl.col("score_1")).with_columns(x_1=value)
    valued = valued.with_columns(score=pl.col("score_2")).with_columns(x_2=value)
    means = valued.group_by(groups).agg(
        total=w.sum(), mean_1=(w * pl.col("x_1")).sum() / w.sum(), mean_2=(w * pl.col("x_2")).sum() / w.sum()
    )
    slopes = (
        means.filter(pl.col("total") > 1)
        .with_columns(mean=pl.col("mean_1"))
        .with_columns(slope_1=slope.cast(pl.Float64), mean=pl.col("mean_2"))
        .with_columns(slope_2=slope.cast(pl.Float64))
    )
    influence = pl.col("slope_2") * (pl.col("x_2") - pl.col("mean_2")) - pl.col("slope_1") * (
        pl.col("x_1") - pl.col("mean_1")
    )
    influences = valued.join(slopes, on=groups, nulls_equal=True).select(*groups, "w", u=influence)
    return on_second_score(influence_spread(influences, groups), slices, pair)
