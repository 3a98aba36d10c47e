"""The interval of a (weighted) mean over independent queries (gauc and the ranking
metrics; ``sql/intervals/query_mean.sql``): ``se² = n/(n − 1) · Σ g_u² (x_u − m)² /
(Σ g_u)²`` over the n queries used, and Student's t with n − 1 degrees of freedom; and
of the difference of two paired means over the queries both use
(``sql/intervals/paired_query_mean.sql``). The polars forms (``spread_expr``,
``paired_spread``) are called by each metric's own per-query step, which brings its
``_se`` and ``_df``. Clustered by a unit that is not the query (``ci_unit``: the users
of requests), each unit's part Σ_{q in k} g_q·(x_q − m) / Σ g of the linearization over
its queries (``sql/intervals/clustered_query_mean.sql``; in polars from the metric's
queries, ``clustered_parts``)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.spec import ClusteredInterval, Interval, MetricCall, PairedInterval, PerQuery


def query_mean(per_query: PerQuery) -> Interval:
    """The interval of a (weighted) mean over queries: the ``value`` and ``weight`` of the
    metric's per-query step (value NULL for a query left out)."""
    return Interval(
        "query_mean",
        "intervals/query_mean.sql",
        "Student's t over queries",
        comparison="mean over queries",
        values=(("per_query", per_query.step), ("value", per_query.value), ("weight", per_query.weight)),
        student=True,
        paired=PairedInterval("intervals/paired_query_mean.sql", "paired t over queries"),
        clustered=CLUSTERED,
    )


def clustered_parts(call: MetricCall, queries: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """clustered_query_mean.sql over the call's ``queries`` (per slice, ``query``, its
    ``value``, NULL for one left out, ``weight`` and ``unit_id``): each unit's part
    Σ_{q in k} g_q·(x_q − m) / G of the mean over the used queries."""
    used = queries.filter(pl.col("value").is_not_null())
    g, x = pl.col("weight").cast(pl.Float64), pl.col("value").cast(pl.Float64)
    slice_sums = used.group_by(slices).agg(total=g.sum(), weighted=(g * x).sum())
    mean = pl.col("weighted") / pl.when(pl.col("total") != 0).then(pl.col("total"))
    joined = used.join(slice_sums, on=slices, nulls_equal=True).with_columns(mean=mean)
    return joined.select(*slices, "unit_id", part=g * (x - pl.col("mean")) / pl.col("total"))


CLUSTERED = ClusteredInterval(
    "intervals/clustered_query_mean.sql", clustered_parts, whole_queries=True, method="mean over queries"
)


def spread_expr(value: pl.Expr, weight: pl.Expr | None = None) -> tuple[pl.Expr, pl.Expr]:
    """``se`` and ``df`` of the weighted mean of ``value`` over the rows where it is not
    NULL (query_mean.sql's formula); NULL below two values."""
    used = value.is_not_null()
    x = value.filter(used)
    g = pl.lit(1.0) if weight is None else weight.filter(used).cast(pl.Float64)
    n = used.sum().cast(pl.Float64)
    total = g.sum() if weight is not None else n
    mean = (g * x).sum() / total
    share = g / total  # of the slice's weight: weights of any size give the same se
    squares = (share * share * (x - mean) * (x - mean)).sum()
    se = pl.when(n > 1).then((n / (n - 1) * squares).sqrt())
    df = pl.when(n > 1).then(n - 1).cast(pl.Int64)
    return se, df


def paired_spread(per_query: pl.LazyFrame, by: list[str], pair: str, value: pl.Expr, weight: pl.Expr | None, name: str):
    """paired_query_mean.sql: per slice of ``by`` (whose slice ``pair`` says which of two
    paired scores, 1 or 2, a query's ``value`` was computed with), ``<name>_se`` and
    ``<name>_df`` of the difference of the two means over the queries both use, on the
    rows of ``pair`` = 2."""
    groups = [column for column in by if column != pair]
    g = pl.lit(1.0) if weight is None else weight.cast(pl.Float64)
    queries = per_query.select(*by, "query", x=value.cast(pl.Float64), g=g).filter(pl.col("x").is_not_null())
    first = queries.filter(pl.col(pair) == 1).select(*groups, "query", first="x")
    second = queries.filter(pl.col(pair) == 2)
    differences = second.join(first, on=[*groups, "query"], nulls_equal=True)
    se, df = spread_expr(pl.col("x") - pl.col("first"), pl.col("g") if weight is not None else None)
    return differences.group_by(by).agg(se.alias(f"{name}_se"), df.alias(f"{name}_df"))
