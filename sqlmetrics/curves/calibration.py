"""calibration_curve: mean predicted score against observed positive rate per score bin."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import polars as pl

from sqlmetrics import templates
from sqlmetrics.curves._curve import CurveKind, compute
from sqlmetrics.metrics.classification._binary import ratio
from sqlmetrics.spec import Metric, Param

SPEC = Metric(
    name="calibration_curve",
    family="curve",
    summary="per score bin: Σ w·p / Σ w against Σ w·y / Σ w, non-empty bins",
    template="curves/calibration.sql",
    reads="score_hist",
    score_domain="probability",
    higher_is_better=None,
    range=None,
    reference="sklearn.calibration.calibration_curve",
)

BINS = Param("bins", int, 10, "number of bins", rule=lambda value: value >= 1, rule_text="must be an integer >= 1")
STRATEGY = Param(
    "strategy",
    str,
    "uniform",
    "uniform: equal-width bins over [0, 1]; quantile: bins of equal row counts",
    choices=("uniform", "quantile"),
)

CUT_SCHEMA = {"j": pl.Int64, "fraction": pl.Float64, "level": pl.Float64}


def cuts(bins: int) -> list[tuple[int, float, float]]:
    """(j, fraction, level) for j = 0 .. bins: fraction is numpy.linspace(0, 1, bins + 1)
    to the last bit (j · (1 / bins), the last exactly 1), level the percentile level
    numpy.percentile reads after scikit-learn's ``fraction * 100`` (fraction · 100 / 100)."""
    step = 1.0 / bins
    fractions = [j * step for j in range(bins)] + [1.0]
    return [(j, fraction, fraction * 100 / 100) for j, fraction in enumerate(fractions)]


def cuts_sql(*, bins: int, **_: object) -> dict[str, str]:
    """The template's ``{{ cuts }}`` table."""
    rows = ", ".join(f"({j}, {templates.literal(f)}, {templates.literal(q)})" for j, f, q in cuts(bins))
    return {"cuts": f"(VALUES {rows}) AS cuts(j, fraction, level)"}


def from_score_hist(hist: pl.DataFrame, slices: list[str], *, bins: int, strategy: str) -> pl.LazyFrame:
    """The non-empty bins of each slice from the score histogram (see ``sm.calibration_curve``)."""
    scores = hist.lazy().select(*slices, "score", "n", "w", "w_pos")
    inner = pl.LazyFrame(cuts(bins)[1:-1], schema=CUT_SCHEMA, orient="row")
    slice_rows = scores.group_by(slices).agg(rows=pl.col("n").sum())
    if strategy == "uniform":
        edges = slice_rows.join(inner, how="cross").select(*slices, edge="fraction")
    else:
        edges = _quantile_edges(scores, slice_rows.join(inner, how="cross"), slices)
    w = pl.col("w")
    return (
        _binned(scores, edges, slices)
        .group_by([*slices, "bin"])
        .agg(
            mean_score=ratio((pl.col("score") * w).sum(), w.sum()),
            observed_rate=ratio(pl.col("w_pos").sum(), w.sum()),
            count=pl.col("n").sum().cast(pl.Int64),
            weight=w.sum(),
        )
    )


def _binned(scores: pl.LazyFrame, edges: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """Each score with its bin: the number of inner edges strictly below it (an edge
    sorts after an equal score)."""
    marks = edges.select(*slices, score="edge", is_edge=pl.lit(1, pl.Int64))
    return (
        pl.concat([scores.with_columns(is_edge=pl.lit(0, pl.Int64)), marks], how="diagonal")
        .sort([*slices, "score", "is_edge"], nulls_last=True)
        .with_columns(bin=pl.col("is_edge").cum_sum().over(slices))
        .filter(pl.col("is_edge") == 0)
    )


def _quantile_edges(scores: pl.LazyFrame, levels: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """numpy.percentile(scores, fraction · 100) per slice and cut: numpy's linear rule and
    _lerp to the last bit (the SQL template spells it out). Products get their own
    columns: in one expression polars would fuse ``x * y + z`` into a single-rounding
    multiply-add, which numpy does not."""
    positions = (
        levels.with_columns(v=(pl.col("rows") - 1).cast(pl.Float64) * pl.col("level"))
        .with_columns(lower=pl.col("v").floor(), t=pl.col("v") - pl.col("v").floor())
        .with_columns(upper=pl.min_horizontal(pl.col("lower") + 1, pl.col("rows") - 1))
    )
    ranked = scores.sort([*slices, "score"], nulls_last=True).with_columns(
        below=(pl.col("n").cum_sum() - pl.col("n")).over(slices).cast(pl.Float64)
    )
    keys = [*slices, "j"]
    lower = _order_statistic(ranked, positions, slices, "lower").rename({"score": "a"})
    upper = _order_statistic(ranked, positions, slices, "upper").rename({"score": "b"})
    a, b, t = pl.col("a"), pl.col("b"), pl.col("t")
    return (
        positions.join(lower, on=keys, nulls_equal=True)
        .join(upper, on=keys, nulls_equal=True)
        .with_columns(up=(b - a) * t, down=(b - a) * (1 - t))
        .select(*slices, edge=pl.when(t >= 0.5).then(b - pl.col("down")).otherwise(a + pl.col("up")))
    )


def _order_statistic(ranked: pl.LazyFrame, positions: pl.LazyFrame, slices: list[str], position: str) -> pl.LazyFrame:
    """Per slice and cut j, the score at 0-based sorted position ``position``: the last
    score whose rows start at or before it (scores and positions in one order)."""
    starts = ranked.select(*slices, key="below", score="score", is_lookup=pl.lit(0, pl.Int64))
    lookups = positions.select(*slices, "j", key=pl.col(position).cast(pl.Float64), is_lookup=pl.lit(1, pl.Int64))
    return (
        pl.concat([starts, lookups], how="diagonal")
        .sort([*slices, "key", "is_lookup"], nulls_last=True)
        .with_columns(pl.col("score").forward_fill().over(slices))
        .filter(pl.col("is_lookup") == 1)
        .select(*slices, "j", "score")
    )


KIND = CurveKind(
    spec=SPEC,
    steps=(("curve", SPEC.template),),
    params=(BINS, STRATEGY),
    columns=("bin", "mean_score", "observed_rate", "count", "weight"),
    weighted_only=("weight",),
    order="bin",
    axes=("mean_score", "observed_rate"),
    axis_titles=("mean predicted score", "observed positive rate"),
    compute=from_score_hist,
    sql_values=cuts_sql,
)


def calibration_curve(
    source: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    bins: int = 10,
    strategy: str = "uniform",
    engine: str = "duckdb",
    con: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame:
    """The calibration (reliability) curve of each slice: the slice columns, then ``bin``,
    ``mean_score``, ``observed_rate``, ``count`` and, with a weight, ``weight``.

    scikit-learn's ``calibration_curve(y, p, n_bins=bins, strategy=strategy)`` as rows,
    one per non-empty bin, sorted by slice and bin (0 .. bins − 1):
    ``observed_rate`` is its ``prob_true``, ``mean_score`` its ``prob_pred``, ``count``
    the rows in the bin. Bin edges are numpy's, to the last bit: ``uniform`` cuts [0, 1]
    at j/bins (``numpy.linspace``); ``quantile`` at ``numpy.percentile(p, j/bins · 100)``
    of the slice's scores (linear interpolation). A score is in the bin whose lower
    edge is strictly below it: a score equal to an inner edge falls in the lower bin, 0
    in the first and 1 in the last.

    scikit-learn takes no sample weight; with ``weight`` the means are weighted,

        mean_score = Σ w·p / Σ w,  observed_rate = Σ w·y / Σ w,  weight = Σ w

    (NULL when a bin's weight is 0), while the edges stay those of the rows (weights of 1
    give the unweighted curve). Scores must be probabilities in [0, 1], labels 0/1.

    >>> import polars as pl, sqlmetrics as sm
    >>> df = pl.DataFrame({"label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    >>> sm.calibration_curve(df, bins=2).select(pl.all().round(6)).rows()  # [0, .5] and (.5, 1]
    [(0, 0.283333, 0.333333, 3), (1, 0.8, 1.0, 1)]
    """
    return compute(
        KIND,
        source,
        label=label,
        score=score,
        weight=weight,
        by=by,
        engine=engine,
        con=con,
        bins=bins,
        strategy=strategy,
    )
