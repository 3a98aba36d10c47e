"""calibration_curve: mean predicted score against observed positive rate per score bin."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import polars as pl

from sqlmetrics.curves._curve import CurveKind, compute
from sqlmetrics.metrics.classification import ratio
from sqlmetrics.metrics.classification.calibration_bins import STRATEGY, bin_sums, bins_param, cuts_sql
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="calibration_curve",
    family="curve",
    summary="per score bin: Σ w·p / Σ w against Σ w·y / Σ w, non-empty bins",
    template="curves/calibration.sql",
    intermediates=("score_hist",),
    score_domain="probability",
    higher_is_better=None,
    range=None,
    reference="sklearn.calibration.calibration_curve",
)

BINS = bins_param(10)


def from_score_hist(hist: pl.DataFrame, slices: list[str], *, bins: int, strategy: str) -> pl.LazyFrame:
    """The non-empty bins of each slice from the score histogram (see ``sm.calibration_curve``)."""
    w = pl.col("w")
    return bin_sums(hist, slices, bins=bins, strategy=strategy).select(
        *slices,
        "bin",
        mean_score=ratio(pl.col("w_score"), w),
        observed_rate=ratio(pl.col("w_pos"), w),
        count="n",
        weight=w,
    )


KIND = CurveKind(
    spec=SPEC,
    steps=(("calibration_bins", "intermediates/calibration_bins.sql"), ("curve", SPEC.template)),
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
