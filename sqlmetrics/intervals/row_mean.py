"""The interval of a weighted mean of each row's value (logloss, brier, score_mean,
label_mean; ``sql/intervals/row_mean.sql``): the sample variance of the values over
the summed weight, weights counting as frequencies, and the normal interval."""

from __future__ import annotations

import polars as pl

from sqlmetrics.spec import ClusteredInterval, Interval, MetricCall, PairedInterval


def clustered_mean_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """clustered_mean.sql over the used rows (with ``unit_id``): each unit's part of the
    mean of the interval's ``value`` over the rows where ``where`` holds (times ``slope``
    at the mean), slope·(Σ_k w·x − m·Σ_k w) / W. The values are the interval's SQL."""
    values = dict(call.spec.interval.values)
    w = pl.col("w")
    used = rows.filter(w.is_not_null() & pl.sql_expr(values["where"]))
    units = used.group_by(*slices, "unit_id").agg(w=w.sum(), wx=(w * pl.sql_expr(values["value"])).sum())
    total = w.sum().over(slices)
    totalled = units.with_columns(total=total, mean=pl.col("wx").sum().over(slices) / total)
    slope = pl.sql_expr(values["slope"]).cast(pl.Float64)
    part = slope * (pl.col("wx") - pl.col("mean") * w) / pl.col("total")
    return totalled.filter(pl.col("total") > 0).select(*slices, "unit_id", part=part)


CLUSTERED_MEAN = ClusteredInterval("intervals/clustered_mean.sql", clustered_mean_polars)


def row_mean(positive: str, negative: str) -> Interval:
    """The interval of a weighted mean of each row's value, given as SQL over ``score``
    for a positive and for a negative row: read over the score histogram, each score's
    positive and negative weight carrying the two values."""
    # the row's value as clustered_mean.sql reads it (the mean itself, over every used row)
    value = f"CASE WHEN label = 1 THEN {positive} ELSE {negative} END"
    values = (("positive", positive), ("negative", negative), ("value", value), ("where", "TRUE"), ("slope", "1"))
    return Interval(
        "row_mean",
        "intervals/row_mean.sql",
        "mean over rows",
        comparison="mean over rows",
        values=values,
        polars=row_mean_polars,
        reads_histogram=True,
        paired=PairedInterval(
            "intervals/paired_row_mean.sql",
            "paired, normal: mean over rows",
            over_rows=True,
            polars=paired_row_mean_polars,
        ),
        clustered=CLUSTERED_MEAN,
    )


def row_mean_polars(call: MetricCall, hist: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """row_mean.sql over the score histogram: each score's positive and negative weight
    with the value of a positive and of a negative row there. The row values are the
    interval's SQL, read by polars' SQL expression parser: one declaration for both
    engines."""
    values = dict(call.spec.interval.values)
    weighted_values = pl.concat(
        [
            hist.select(*slices, w=pl.col(f"w_{side}"), x=pl.sql_expr(values[side_name]).cast(pl.Float64))
            for side, side_name in (("pos", "positive"), ("neg", "negative"))
        ]
    )
    return weighted_mean_spread(weighted_values, slices, pl.lit(1.0))


def weighted_spreads(weighted_values: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """Per slice of W > 0, ``total`` = W = Σ w, ``mean`` = Σ w·x / W and ``spread`` =
    Σ w·(x − mean)² of the values ``x`` of weight ``w``, in two passes (the mean, then the
    squares about it; residual_spread.sql)."""
    w, x = pl.col("w"), pl.col("x")
    means = weighted_values.group_by(slices).agg(total=w.sum(), mean=(w * x).sum() / w.sum())
    joined = weighted_values.join(means.filter(pl.col("total") > 0), on=slices, nulls_equal=True)
    squares = (w * (x - pl.col("mean")) ** 2).sum()
    return joined.group_by(slices).agg(pl.col("total").first(), pl.col("mean").first(), spread=squares)


def weighted_mean_spread(weighted_values: pl.LazyFrame, slices: list[str], slope: pl.Expr) -> pl.LazyFrame:
    """Per slice, ``se`` = slope(mean)·√(Σ w·(x − mean)² / ((W − 1)·W)) of the values ``x``
    of weight ``w`` (``weighted_spreads``), NULL unless W > 1; ``df`` NULL (the normal
    interval)."""
    n = pl.col("total")
    of_mean = weighted_spreads(weighted_values, slices).filter(n > 1)
    se_of_mean = (pl.col("spread") / n / (n - 1)).sqrt()
    return of_mean.select(*slices, se=se_of_mean * slope, df=pl.lit(None, pl.Int64))


def paired_row_mean_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame:
    """paired_row_mean.sql over the used rows of two paired scores (the slice ``pair``
    says which, 1 or 2; each row of 1 carries both, ``score_1`` and ``score_2``): per
    slice ``se`` of the difference of the two means, on the rows of 2."""
    values = dict(call.spec.interval.values)
    used, groups = first_score_rows(rows, slices, pair)
    positive = pl.col("label") == 1
    value = pl.when(positive).then(pl.sql_expr(values["positive"])).otherwise(pl.sql_expr(values["negative"]))
    first = used.with_columns(score=pl.col("score_1")).with_columns(x_1=value.cast(pl.Float64))
    both = first.with_columns(score=pl.col("score_2")).with_columns(x=value.cast(pl.Float64) - pl.col("x_1"))
    return on_second_score(weighted_mean_spread(both.select(*groups, "w", "x"), groups, pl.lit(1.0)), slices, pair)


def first_score_rows(rows: pl.LazyFrame, slices: list[str], pair: str) -> tuple[pl.LazyFrame, list[str]]:
    """The used rows of two paired scores as their paired templates read ``paired_rows``:
    the rows of the first score (each carries both, ``score_1`` and ``score_2``), and the
    slices to group them by (all but ``pair``; a constant key ``sqlmetrics_all`` when
    there is none)."""
    groups = [column for column in slices if column != pair]
    used = rows.filter(pl.col(pair) == 1)
    if not groups:
        return used.with_columns(sqlmetrics_all=pl.lit(0)), ["sqlmetrics_all"]
    return used, groups


def on_second_score(spread: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame:
    """A paired spread per ``first_score_rows`` group (``se``, ``df``) given on the rows
    of the second score: the slice ``pair`` = 2."""
    spread = spread.drop("sqlmetrics_all", strict=False)
    return spread.with_columns(pl.lit(2, pl.Int32).alias(pair)).select(*slices, "se", "df")


def influence_spread(influences: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """Per slice, ``se`` = √(Σ w·u² / (W·(W − 1))) of the influences ``u`` (each row's on
    the metric, averaging 0) of rows of weight ``w``, W their sum (the caller keeps the
    slices of W > 1); NULL where every u is (SQL's SUM of NULLs: a slope undefined
    there), ``df`` NULL (the normal interval)."""
    w, u = pl.col("w"), pl.col("u")
    total = w.sum()
    se = pl.when(u.count() > 0).then(((w * u * u).sum() / total / (total - 1)).sqrt())
    return influences.group_by(slices).agg(se=se, df=pl.lit(None, pl.Int64))
