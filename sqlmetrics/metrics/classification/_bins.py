"""The polars forms of the metrics of the calibration bins (ece, brier_reliability,
brier_resolution, logloss_reliability, logloss_resolution): each is a frame function that
cuts its slices' rows into ``sm.calibration_curve``'s bins (``calibration_bins.bin_sums``)
and aggregates the bins of each slice with one expression of the bins' sums (``w``,
``w_pos``, ``w_score`` per bin), the polars twin of its template's SQL over the step
``calibration_bins``.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification._binary import ratio
from sqlmetrics.metrics.classification.calibration_bins import bin_sums
from sqlmetrics.metrics.classification.logloss import EPSILON
from sqlmetrics.sources import Frame, in_kind, slice_names
from sqlmetrics.spec import Metric

# the bins' columns: a bin's weight, positives' weight and Σ w·p
W, W_POS, W_SCORE = pl.col("w"), pl.col("w_pos"), pl.col("w_score")


def observed() -> pl.Expr:
    """ō_b = Σ w·y / Σ w of each bin (NULL for a bin of weight 0)."""
    return ratio(W_POS, W)


def forecast() -> pl.Expr:
    """f̄_b = Σ w·p / Σ w of each bin (NULL for a bin of weight 0)."""
    return ratio(W_SCORE, W)


def base_rate() -> pl.Expr:
    """ō = Σ w·y / Σ w of the slice, over its bins."""
    return ratio(W_POS.sum(), W.sum())


def weighted_mean(per_bin: pl.Expr) -> pl.Expr:
    """Σ_b W_b·x_b / W over the bins of weight > 0 (NULL when W = 0)."""
    return ratio((W * per_bin).filter(W > 0).sum(), W.sum())


def divergence(o: pl.Expr, f: pl.Expr) -> pl.Expr:
    """The Kullback–Leibler divergence (nats) of Bernoulli(f) from Bernoulli(o), with
    0·ln 0 = 0: o·ln(o/f) + (1 − o)·ln((1 − o)/(1 − f)); the SQL templates write the same."""
    first = pl.when(o > 0).then(o * (o / f).log()).otherwise(0.0)
    second = pl.when(o < 1).then((1 - o) * ((1 - o) / (1 - f)).log()).otherwise(0.0)
    return first + second


def clipped_forecast() -> pl.Expr:
    """f̄_b clipped to [ε, 1 − ε] as logloss clips a score (ε = 2⁻⁵²)."""
    return forecast().clip(EPSILON, 1 - EPSILON)


def binned_frame(
    data: Frame,
    spec: Metric,
    value: pl.Expr,
    *,
    score: str,
    label: str,
    weight: str | None,
    by: Sequence[str],
    bins: int,
    strategy: str,
) -> Frame:
    """Per slice of ``by``, the column named as ``spec``'s metric: ``value`` aggregated
    over the slice's calibration bins (``bins`` and ``strategy`` checked against the
    spec's parameters). Rows with a NULL score, label or weight are left out first."""
    bins = spec.param("bins").validate(spec.name, bins)
    strategy = spec.param("strategy").validate(spec.name, strategy)
    slices = slice_names(by)
    keys = slices or ["all_rows"]
    columns = {"score": pl.col(score), "label": pl.col(label), "weight": pl.col(weight) if weight else pl.lit(1.0)}
    rows = data.lazy().select(
        *(pl.col(c).alias(s) for c, s in zip(by, slices)),
        *(column.cast(pl.Float64).alias(role) for role, column in columns.items()),
        *(() if slices else (pl.lit(0).alias("all_rows"),)),
    )
    used = rows.drop_nulls(["score", "label", "weight"])
    hist = used.group_by([*keys, "score"]).agg(
        n=pl.len().cast(pl.Int64), w=pl.col("weight").sum(), w_pos=(pl.col("weight") * pl.col("label")).sum()
    )
    result = bin_sums(hist, keys, bins=bins, strategy=strategy).group_by(keys).agg(value.alias(spec.name))
    result = result.rename(dict(zip(slices, by))) if slices else result.drop("all_rows")
    return in_kind(result, data)
