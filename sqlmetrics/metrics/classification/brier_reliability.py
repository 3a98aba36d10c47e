"""brier_reliability: the Brier score's reliability (miscalibration), Murphy's binned form."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification._bins import binned_frame, forecast, observed, weighted_mean
from sqlmetrics.metrics.classification.calibration_bins import STRATEGY, bins_param
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="brier_reliability",
    family="classification",
    polars_form="frame",
    summary="Σ_b W_b·(f̄_b − ō_b)² / W over calibration_curve's bins",
    template="classification/brier_reliability.sql",
    intermediates=("calibration_bins",),
    params=(bins_param(15), STRATEGY),
    score_domain="probability",
    higher_is_better=False,
    range=(0.0, 1.0),
    reference="brute force over calibration_curve's bins (Murphy 1973)",
)


def value() -> pl.Expr:
    """Σ_b W_b·(f̄_b − ō_b)² / W over a slice's bins."""
    return weighted_mean((forecast() - observed()) ** 2)


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
    """brier_reliability = Σ_b W_b·(f̄_b − ō_b)² / W, the reliability (miscalibration)
    term of Murphy's decomposition of the Brier score over the calibration bins b, with
    f̄_b = Σ w·p / Σ w the bin's mean score, ō_b = Σ w·y / Σ w its observed positive
    rate, W_b its weight and W the slice's. Lower is better.

    brier_reliability − brier_resolution + brier_uncertainty is the binned Brier score,
    Σ w·(f̄_b − y)² / W: each score replaced by its bin's mean score. The Brier score
    itself exceeds it by Σ w·(p − f̄_b)·(p + f̄_b − 2y) / W, the scores' spread within
    their bins (0 when every bin holds one score).

    The bins are ``sm.calibration_curve``'s (see ``ece``). Scores must be probabilities in
    [0, 1]. NULL when the slice's weight is 0. ``query`` is not read; a function of a
    frame rather than an expression, as it needs bins per slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.1, 0.3, 0.8, 0.9], "label": [0, 1, 1, 1]})
    >>> # bins [.1, .3] and [.8, .9]: (2·(.2 − .5)² + 2·(.85 − 1)²) / 4
    >>> smp.brier_reliability(df, score="score", label="label", bins=2).select(pl.all().round(12)).item()
    0.05625
    """
    return binned_frame(
        data, SPEC, value(), score=score, label=label, weight=weight, by=by, bins=bins, strategy=strategy
    )
