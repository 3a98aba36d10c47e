"""ece: the expected calibration error over sm.calibration_curve's bins (MCE with norm="max")."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification._binary import ratio
from sqlmetrics.metrics.classification._bins import W_POS, W_SCORE, W, binned_frame, forecast, observed, weighted_mean
from sqlmetrics.metrics.classification.calibration_bins import STRATEGY, bins_param
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric, Param

NORM = Param(
    "norm",
    str,
    "l1",
    "l1: the weighted mean gap (ECE); l2: the root of the weighted mean squared gap; max: the largest gap (MCE)",
    choices=("l1", "l2", "max"),
)

SPEC = Metric(
    name="ece",
    family="classification",
    polars_form="frame",
    summary="Σ_b W_b·abs(ō_b − f̄_b) / W over calibration_curve's bins (norm l2: √ of the squares; max: MCE)",
    template="classification/ece.sql",
    intermediates=("calibration_bins",),
    params=(bins_param(15), STRATEGY, NORM),
    score_domain="probability",
    higher_is_better=False,
    reference=(
        "torchmetrics BinaryCalibrationError and netcal ECE/MCE "
        "(their formulas written out in tests/test_calibration_metrics.py)"
    ),
)


def _gap() -> pl.Expr:
    return observed() - forecast()


def _value(norm: str) -> pl.Expr:
    if norm == "l1":
        return ratio((W_POS - W_SCORE).abs().sum(), W.sum())
    if norm == "l2":
        return weighted_mean(_gap() ** 2).sqrt()
    return _gap().abs().filter(W > 0).max()


def frame(
    data: Frame,
    *,
    score: str,
    label: str,
    weight: str | None = None,
    by: Sequence[str] = (),
    bins: int = 15,
    strategy: str = "uniform",
    norm: str = "l1",
    query: str | None = None,
) -> Frame:
    """ECE over the calibration bins of each slice of ``by``: with ō_b = Σ w·y / Σ w (the
    bin's observed positive rate), f̄_b = Σ w·p / Σ w (its mean score), W_b its weight and
    W the slice's,

        l1 (ECE) = Σ_b W_b·|ō_b − f̄_b| / W,   l2 = √(Σ_b W_b·(ō_b − f̄_b)² / W),
        max (MCE) = max_b |ō_b − f̄_b| over the bins of weight > 0.

    The bins are ``sm.calibration_curve``'s (scikit-learn's): ``uniform`` cuts [0, 1] at
    j · (1 / bins), ``quantile`` at numpy's percentiles of the slice's rows (each row
    once, whatever its weight); a score equal to an edge is in the lower bin (torchmetrics
    and netcal put it in the upper one). Scores must be probabilities in [0, 1]. NULL when
    the slice's weight is 0. ``query`` is not read. ECE needs bins per slice, so it is a
    function of a frame rather than an expression.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.1, 0.3, 0.8, 0.9], "label": [0, 1, 1, 1]})
    >>> round(smp.ece(df, score="score", label="label", bins=2).item(), 12)  # (|1/2 − 0.2|·2 + |1 − 0.85|·2) / 4
    0.225
    """
    value = _value(NORM.validate("ece", norm))
    return binned_frame(data, SPEC, value, score=score, label=label, weight=weight, by=by, bins=bins, strategy=strategy)
