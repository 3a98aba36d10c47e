"""mcc: the Matthews correlation coefficient of predicted and true classes."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.confusion_delta import confusion_delta
from sqlmetrics.metrics.classification._binary import (
    THRESHOLD,
    IntoExpr,
    binary_weights,
    confusion,
    of_confusion_shares,
    ratio,
)
from sqlmetrics.spec import Metric

# the gradient of mcc = (tp·tn − fp·fn)/D, D = √((tp + fp)(tp + fn)(tn + fp)(tn + fn)), in
# the confusion cells' shares (intervals/confusion_delta.py): ∂mcc/∂x = ∂(tp·tn − fp·fn)/∂x / D
# − mcc/2 · Σ 1/(each factor of D holding x)
_D = "CAST(NULLIF(SQRT((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)), 0) AS DOUBLE)"
_HALF_MCC = f"(tp * tn - fp * fn) / {_D} / CAST(2 AS DOUBLE)"


def _inverse(factor: str) -> str:
    return f"1 / CAST(NULLIF({factor}, 0) AS DOUBLE)"


GRADIENT = (
    f"tn / {_D} - {_HALF_MCC} * ({_inverse('tp + fp')} + {_inverse('tp + fn')})",
    f"-fn / {_D} - {_HALF_MCC} * ({_inverse('tp + fp')} + {_inverse('tn + fp')})",
    f"tp / {_D} - {_HALF_MCC} * ({_inverse('tn + fp')} + {_inverse('tn + fn')})",
    f"-fp / {_D} - {_HALF_MCC} * ({_inverse('tp + fn')} + {_inverse('tn + fn')})",
)

SPEC = Metric(
    name="mcc",
    family="classification",
    polars_form="histogram",
    summary="Matthews correlation coefficient of predicted (score >= threshold) and true class",
    template="classification/mcc.sql",
    intermediates=("confusion",),
    params=(THRESHOLD,),
    range=(-1.0, 1.0),
    reference="sklearn.metrics.matthews_corrcoef",
    interval=confusion_delta(*GRADIENT),
    sums=of_confusion_shares(f"(tp * tn - fp * fn) / {_D}"),  # as mcc.sql: of the shares
    # rises with tp and falls with fp, P and N fixed (compose/rounding_bound.py derives it): a row's
    # score moves it one way only
    score_rounding="monotone",
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, threshold: float = 0.5) -> pl.Expr:
    """mcc from each score's positive and negative weight (rows or a histogram); each
    count divided by their total first (the same value), so that no product of weights
    overflows or underflows."""
    counts = confusion(s, w_pos, w_neg, threshold)
    total = sum(counts)
    tp, fp, tn, fn = (ratio(count, total) for count in counts)
    return ratio(tp * tn - fp * fn, ((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)).sqrt())


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, threshold: float = 0.5) -> pl.Expr:
    """mcc = (TP·TN − FP·FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN)), weighted.

    NULL when any factor is 0: a constant prediction or a one-class slice (scikit-learn
    returns 0.0 there).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.7], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.mcc("score", "label")).item()  # (2·2 − 1·0) / sqrt(3·2·3·2) = 4/6
    0.6666666666666666
    """
    return from_histogram(*binary_weights(score, label, weight), threshold=threshold)
