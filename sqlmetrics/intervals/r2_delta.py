"""The delta method's interval of R² = 1 − SSE/SST (``sql/intervals/r2_delta.sql``):
each row's influence u = −[(e² − A) − (A/B)·((y − ȳ)² − B)] / B, with A = SSE/W and
B = SST/W (``r2_moments.sql``), and se² = Σ w·u² / (W·(W − 1)), weights counting as
frequencies; the normal interval, NULL where the targets are all equal (SST = 0). Its
paired form (``paired_r2_delta.sql``): the same over d = u₂ − u₁, each score's influence
on its R²; clustered by a unit (``clustered_r2_delta.sql``): each unit's part
Σ_k w·u / W."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.row_mean import first_score_rows, influence_spread, on_second_score
from sqlmetrics.spec import ClusteredInterval, Interval, MetricCall, PairedInterval

# a row's influence on R² (r2_delta.sql's u) as SQL over the row (i) and its slice's moments (s, r2_moments.sql)
INFLUENCE = """-(((i.score * s.scale - i.label * s.scale) * (i.score * s.scale - i.label * s.scale) - s.mse)
             - s.mse / CAST(s.spread AS DOUBLE)
               * ((i.label * s.scale - s.mean_label) * (i.label * s.scale - s.mean_label) - s.spread))
           / CAST(s.spread AS DOUBLE)"""


def r2_delta() -> Interval:
    """The delta method's interval of r2, over the used rows."""
    return Interval(
        "r2_delta",
        "intervals/r2_delta.sql",
        "delta method",
        comparison="delta method",
        values=(("influence", INFLUENCE),),
        steps=(("moments", "intervals/r2_moments.sql"),),
        polars=r2_delta_polars,
        paired=PairedInterval(
            "intervals/paired_r2_delta.sql",
            "paired, normal: delta method",
            over_rows=True,
            polars=paired_r2_delta_polars,
        ),
        clustered=ClusteredInterval("intervals/clustered_r2_delta.sql", clustered_r2_delta_polars),
    )


def r2_delta_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """r2_delta.sql over the used rows (``score``, ``label``, ``w``)."""
    return influence_spread(_influences(rows, slices), slices)


def clustered_r2_delta_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """clustered_r2_delta.sql over the used rows (with ``unit_id``): each unit's part
    Σ_k w·u / W of its rows' influences."""
    influences = _influences(rows.filter(pl.col("w").is_not_null()), slices, "unit_id", "total")
    part = (pl.col("w") * pl.col("u")).sum() / pl.col("total").first()
    return influences.group_by(*slices, "unit_id").agg(part=part)


def _influences(rows: pl.LazyFrame, slices: list[str], *kept: str) -> pl.LazyFrame:
    """Each used row's ``w`` and influence ``u`` on its slice's R² (with the columns
    ``kept``), in the slices where R² is defined."""
    moments = r2_moments(rows, slices, {"mse": scaled_squared_error("score")})
    return rows.join(moments, on=slices, nulls_equal=True).select(
        *slices, "w", *kept, u=r2_influence(scaled_squared_error("score"), pl.col("mse"))
    )


def paired_r2_delta_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame:
    """paired_r2_delta.sql over the used rows of two paired scores (the slice ``pair``
    says which, 1 or 2; each row of 1 carries ``score_1`` and ``score_2``): per slice
    ``se`` of the difference of the two R², on the rows of 2."""
    used, groups = first_score_rows(rows, slices, pair)
    errors = {f"mse_{k}": scaled_squared_error(f"score_{k}") for k in (1, 2)}
    moments = r2_moments(used, groups, errors)
    second, first = (r2_influence(scaled_squared_error(f"score_{k}"), pl.col(f"mse_{k}")) for k in (2, 1))
    influences = used.join(moments, on=groups, nulls_equal=True).select(*groups, "w", u=second - first)
    return on_second_score(influence_spread(influences, groups), slices, pair)


def scaled_squared_error(score: str) -> pl.Expr:
    """A row's squared error (ŷ − y)² with ŷ the column ``score``, in the unit of
    ``r2_moments``' ``scale`` (1 / max |y|: R²'s influences do not change with it)."""
    scale = pl.col("scale")
    return (pl.col(score) * scale - pl.col("label") * scale) ** 2


def r2_moments(rows: pl.LazyFrame, slices: list[str], squared_errors: dict[str, pl.Expr]) -> pl.LazyFrame:
    """Per slice of W > 1 whose targets of positive weight differ: ``total`` W, ``scale``
    1 / max |y|, and in that unit ``mean_label`` ȳ, ``spread`` B = Σ w·(y − ȳ)² / W about
    the first pass's ȳ (a slice where it is 0 is left out) and each of ``squared_errors``
    as its weighted mean A (the name its key gives)."""
    w, y = pl.col("w"), pl.col("label")
    targets = y.filter(w > 0)
    scale = 1 / pl.max_horizontal(targets.abs().max(), pl.lit(1e-300))
    first = (
        rows.group_by(slices)
        .agg(
            total=w.sum().cast(pl.Float64),
            scale=scale,
            mean_label=(w * (y * scale)).sum() / w.sum(),
            differ=targets.min() < targets.max(),
        )
        .filter((pl.col("total") > 1) & pl.col("differ"))
        .drop("differ")
    )
    total = pl.col("total").first()
    spread = (w * (y * pl.col("scale") - pl.col("mean_label")) ** 2).sum()
    means = {name: (w * squared).sum() / total for name, squared in squared_errors.items()}
    return (
        rows.join(first, on=slices, nulls_equal=True)
        .group_by(slices)
        .agg(
            total,
            pl.col("scale").first(),
            pl.col("mean_label").first(),
            spread=pl.when(spread != 0).then(spread / total),
            **means,
        )
        .filter(pl.col("spread").is_not_null())  # B = 0: R² has no slope there (SQL's NULL u and se)
    )


def r2_influence(squared_error: pl.Expr, mse: pl.Expr) -> pl.Expr:
    """A row's influence on R² = 1 − A/B given its squared error e² and A (``mse``), in
    the unit of ``r2_moments``, over its columns ``label``, ``scale``, ``mean_label`` and
    ``spread`` (B)."""
    spread = pl.col("spread")
    centred = (pl.col("label") * pl.col("scale") - pl.col("mean_label")) ** 2
    return -((squared_error - mse) - mse / spread * (centred - spread)) / spread
