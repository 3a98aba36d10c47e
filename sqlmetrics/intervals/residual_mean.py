"""The interval of a weighted mean of a value of each row's prediction and target (mae,
mse, mean_error, mape; ``sql/intervals/residual_mean.sql``), or of a smooth function of
that mean by the delta method (rmse = √mse: se / (2·√mse)), the normal interval."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.row_mean import CLUSTERED_MEAN, weighted_mean_spread
from sqlmetrics.spec import Interval, MetricCall


def residual_mean(value: str, where: str = "TRUE", slope: str = "1") -> Interval:
    """The interval of a weighted mean of each row's value, given as SQL over ``score``
    (the prediction) and ``label`` (the target), over the rows where ``where`` holds, or
    of a function of that mean whose derivative is ``slope`` (SQL over ``mean``: the
    delta method). Both engines read the same SQL (polars through ``pl.sql_expr``)."""
    method = "mean over rows" if slope == "1" else "delta method"
    return Interval(
        "residual_mean",
        "intervals/residual_mean.sql",
        method,
        comparison=method,
        values=(("value", value), ("where", where), ("slope", slope)),
        polars=residual_mean_polars,
        clustered=CLUSTERED_MEAN,
    )


def residual_mean_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """residual_mean.sql over the used rows; the value, the rows it is taken over and the
    delta method's slope are the interval's SQL, read by polars' SQL expression parser."""
    values = dict(call.spec.interval.values)
    kept = rows.filter(pl.sql_expr(values["where"]))
    weighted_values = kept.select(*slices, "w", x=pl.sql_expr(values["value"]).cast(pl.Float64))
    return weighted_mean_spread(weighted_values, slices, pl.sql_expr(values["slope"]).cast(pl.Float64))
