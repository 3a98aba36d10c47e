"""logloss_resolution: logloss's resolution (discrimination), the binned decomposition of the log score."""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification._bins import base_rate, binned_frame, divergence, observed, weighted_mean
from sqlmetrics.metrics.classification.calibration_bins import STRATEGY, bins_param
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="logloss_resolution",
    family="classification",
    polars_form="frame",
    summary="Σ_b W_b·KL(ō_b ‖ ō) / W over calibration_curve's bins, nats",
    template="classification/logloss_resolution.sql",
    intermediates=("calibration_bins",),
    params=(bins_param(15), STRATEGY),
    score_domain="probability",
    higher_is_better=True,
    range=(0.0, math.log(2)),
    # its best is logloss_uncertainty, which is ln 2 only at a base rate of ½
    best_reached=False,
    reference="brute force over calibration_curve's bins (the log score's decomposition)",
)


def value() -> pl.Expr:
    """Σ_b W_b·KL(ō_b ‖ ō) / W over a slice's bins."""
    return weighted_mean(divergence(observed(), base_rate()))


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
    """logloss_resolution = Σ_b W_b·KL(ō_b ‖ ō) / W, the resolution (discrimination) term
    of the decomposition of the log score over the calibration bins b: the divergence
    (nats) of the slice's positive rate ō from each bin's ō_b = Σ w·y / Σ w (see
    logloss_reliability). Higher is better; at most logloss_uncertainty.

    The bins are ``sm.calibration_curve``'s (see ``ece``). Scores must be probabilities in
    [0, 1]. NULL when the slice's weight is 0. ``query`` is not read; a function of a
    frame rather than an expression, as it needs bins per slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.1, 0.3, 0.8, 0.9], "label": [0, 1, 1, 1]})
    >>> # KL(½ ‖ ¾)·2/4 + KL(1 ‖ ¾)·2/4
    >>> smp.logloss_resolution(df, score="score", label="label", bins=2).select(pl.all().round(12)).item()
    0.215761554339
    """
    return binned_frame(
        data, SPEC, value(), score=score, label=label, weight=weight, by=by, bins=bins, strategy=strategy
    )
