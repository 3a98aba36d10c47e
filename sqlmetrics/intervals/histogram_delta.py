"""The delta method's interval of a smooth function of weighted means over the rows,
read from the score histogram (calibration; ``sql/intervals/histogram_delta.sql``):
se² = Σ w·u² / (W·(W − 1)) with u each row's influence on the metric (its gradient times
the row's values less their means), declared by the metric as SQL over ``score`` and
the slice's means for a positive and a negative row (read by polars through
``pl.sql_expr``). Two scores of the same rows are compared by the rows' differences of
influence (``sql/intervals/paired_histogram_delta.sql``)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.spec import ClusteredInterval, Interval, MetricCall, PairedInterval


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
        paired=PairedInterval(
            "intervals/paired_histogram_delta.sql",
            "paired, normal: delta method",
            over_rows=True,
            polars=paired_histogram_delta_polars,
        ),
        clustered=ClusteredInterval("intervals/clustered_histogram_delta.sql", clustered_histogram_delta_polars),
    )


def histogram_delta_polars(call: MetricCall, hist: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """histogram_delta.sql over the score histogram (``score``, ``w_pos``, ``w_neg``)."""
    joined = _with_means(call, hist, slices)
    u_pos, u_neg = _influences(call)
    w_pos, w_neg = pl.col("w_pos"), pl.col("w_neg")
    squares = (w_pos * u_pos * u_pos + w_neg * u_neg * u_neg).sum()
    total = pl.col("total").first()
    return joined.group_by(slices).agg(se=(squares / total / (total - 1)).sqrt(), df=pl.lit(None, pl.Int64))


def _with_means(call: MetricCall, rows: pl.LazyFrame, slices: list[str], above: float = 1) -> pl.LazyFrame:
    """``rows`` (``score``, ``w_pos``, ``w_neg``) with their slice's ``total`` weight and
    means, the slices of total weight above ``above`` only."""
    values = dict(call.spec.interval.values)
    means = {name: pl.sql_expr(values[name]) for name in values if name not in ("means", "positive", "negative")}
    w_pos, w_neg = pl.col("w_pos"), pl.col("w_neg")
    slice_means = rows.group_by(slices).agg(total=(w_pos + w_neg).sum(), **means).filter(pl.col("total") > above)
    return rows.join(slice_means, on=slices, nulls_equal=True)


def _influences(call: MetricCall) -> tuple[pl.Expr, pl.Expr]:
    """A positive and a negative row's influence, over ``score`` and the slice's means."""
    values = dict(call.spec.interval.values)
    return pl.sql_expr(values["positive"]).cast(pl.Float64), pl.sql_expr(values["negative"]).cast(pl.Float64)


def paired_histogram_delta_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame:
    """paired_histogram_delta.sql over the used rows of two paired scores (the slice
    ``pair`` says which, 1 or 2; each row of 1 carries both, ``score_1`` and ``score_2``):
    per slice ``se`` of the difference of the metric under the two scores, on the rows
    of 2."""
    groups = [column for column in slices if column != pair] or ["sqlmetrics_all"]
    positive = pl.col("label") == 1
    used = rows.filter((pl.col(pair) == 1) & pl.col("w").is_not_null()).with_columns(
        sqlmetrics_all=pl.lit(0),
        w_pos=pl.when(positive).then("w").otherwise(0.0),
        w_neg=pl.when(positive).then(0.0).otherwise("w"),
    )
    u_pos, u_neg = _influences(call)
    influence = pl.when(positive).then(u_pos).otherwise(u_neg)
    first = _with_means(call, used.with_columns(score=pl.col("score_1")), groups).with_columns(u_1=influence)
    first = first.select(*groups, "label", "w", "w_pos", "w_neg", score=pl.col("score_2"), u_1=pl.col("u_1"))
    both = _with_means(call, first, groups).with_columns(d=influence - pl.col("u_1"))
    total = pl.col("total").first()
    se = ((pl.col("w") * pl.col("d") ** 2).sum() / total / (total - 1)).sqrt()
    out = both.group_by(groups).agg(se=se, df=pl.lit(None, pl.Int64))
    out = out.drop("sqlmetrics_all") if groups == ["sqlmetrics_all"] else out
    return out.with_columns(pl.lit(2, pl.Int32).alias(pair)).select(*slices, "se", "df")


def clustered_histogram_delta_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """clustered_histogram_delta.sql over the used rows (with ``unit_id``): each unit's
    part, its rows' influences summed over W, from its histogram of scores."""
    from sqlmetrics.intervals.delong import unit_histogram

    joined = _with_means(call, unit_histogram(rows, slices), slices, above=0)
    u_pos, u_neg = _influences(call)
    part = (pl.col("w_pos") * u_pos + pl.col("w_neg") * u_neg) / pl.col("total")
    return joined.select(*slices, "unit_id", part=part)
