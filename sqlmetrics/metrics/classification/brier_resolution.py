"""brier_resolution: the Brier score's resolution (discrimination), Murphy's binned form."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification._bins import base_rate, binned_frame, observed, weighted_mean
from sqlmetrics.metrics.classification.calibration_bins import STRATEGY, bins_param
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="brier_resolution",
    family="classification",
    polars_form="frame",
    summary="Σ_b W_b·(ō_b − ō)² / W over calibration_curve's bins",
    template="classification/brier_resolution.sql",
    intermediates=("calibration_bins",),
    params=(bins_param(15), STRATEGY),
    score_domain="probability",
    higher_is_better=True,
    range=(0.0, 0.25),
    # its best is brier_uncertainty, which is 0.25 only at a base rate of ½
    best_reached=False,
    reference="brute force over calibration_curve's bins (Murphy 1973)",
)


def value() -> pl.Expr:
    """Σ_b W_b·(ō_b − ō)² / W over a slice's bins."""
    return weighted_mean((observed() - base_rate()) ** 2)


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
    """brier_resolution = Σ_b W_b·(ō_b − ō)² / W, the resolution (discrimination) term
    of Murphy's decomposition of the Brier score over the calibration bins b, with ō_b =
    Σ w·y / Σ w the bin's observed positive rate, ō the slice's, W_b the bin's weight and
    W the slice's. Higher is better; at most brier_uncertainty (see brier_reliability for
    how the terms add up to the binned Brier score).

    The bins are ``sm.calibration_curve``'s (see ``ece``). Scores must be probabilities in
    [0, 1]. NULL when the slice's weight is 0. ``query`` is not read; a function of a
    frame rather than an expression, as it needs bins per slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.1, 0.3, 0.8, 0.9], "label": [0, 1, 1, 1]})
    >>> # ō = ¾, bins' rates ½ and 1: (2·¼² + 2·¼²) / 4
    >>> smp.brier_resolution(df, score="score", label="label", bins=2).select(pl.all().round(12)).item()
    0.0625
    """
    return binned_frame(
        data, SPEC, value(), score=score, label=label, weight=weight, by=by, bins=bins, strategy=strategy
    )
