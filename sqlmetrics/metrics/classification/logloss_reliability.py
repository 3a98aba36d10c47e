"""logloss_reliability: logloss's reliability (miscalibration), the binned decomposition of the log score."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification._bins import binned_frame, clipped_forecast, divergence, observed, weighted_mean
from sqlmetrics.metrics.classification.calibration_bins import STRATEGY, bins_param
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="logloss_reliability",
    family="classification",
    polars_form="frame",
    summary="Σ_b W_b·KL(ō_b ‖ f̄_b) / W over calibration_curve's bins, nats",
    template="classification/logloss_reliability.sql",
    intermediates=("calibration_bins",),
    params=(bins_param(15), STRATEGY),
    score_domain="probability",
    higher_is_better=False,
    range=(0.0, float("inf")),
    reference="brute force over calibration_curve's bins (the log score's decomposition)",
)


def value() -> pl.Expr:
    """Σ_b W_b·KL(ō_b ‖ f̄_b) / W over a slice's bins, f̄_b clipped as logloss clips a score."""
    return weighted_mean(divergence(observed(), clipped_forecast()))


def frame(
    data: Frame,
    *,
    score: str,
    label: str,
    weight: str | None = None,
    by: Sequence[str] = (),
    bins: int = 15,
    strategy: str = "uniform",
    query: str | None = None,
) -> Frame:
    """logloss_reliability = Σ_b W_b·KL(ō_b ‖ f̄_b) / W, the reliability
    (miscalibration) term of the decomposition of the log score over the calibration bins
    b: the divergence (nats) KL(o ‖ f) = o·ln(o/f) + (1 − o)·ln((1 − o)/(1 − f)), 0·ln 0 = 0,
    of each bin's mean score f̄_b = Σ w·p / Σ w (clipped to [ε, 1 − ε], ε = 2⁻⁵², as logloss
    clips a score) from its observed positive rate ō_b = Σ w·y / Σ w. Lower is better.

    logloss_reliability − logloss_resolution + logloss_uncertainty is the binned logloss,
    −Σ w·(y·ln f̄_b + (1 − y)·ln(1 − f̄_b)) / W: each score replaced by its bin's mean
    score (equal to logloss when every bin holds one score).

    The bins are ``sm.calibration_curve``'s (see ``ece``). Scores must be probabilities in
    [0, 1]. NULL when the slice's weight is 0. ``query`` is not read; a function of a
    frame rather than an expression, as it needs bins per slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.1, 0.3, 0.8, 0.9], "label": [0, 1, 1, 1]})
    >>> # KL(½ ‖ .2)·2/4 + KL(1 ‖ .85)·2/4
    >>> smp.logloss_reliability(df, score="score", label="label", bins=2).select(pl.all().round(12)).item()
    0.192831240406
    """
    return binned_frame(
        data, SPEC, value(), score=score, label=label, weight=weight, by=by, bins=bins, strategy=strategy
    )
