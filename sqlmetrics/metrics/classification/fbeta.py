"""fbeta: the F-score that weighs recall beta times as much as precision."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.confusion_delta import confusion_delta
from sqlmetrics.metrics.classification._binary import (
    THRESHOLD,
    IntoExpr,
    binary_weights,
    confusion,
    fscore_gradient,
    fscore_weights,
    ratio,
)
from sqlmetrics.spec import Metric, Param, SumsOfRows

# r = β²/(1 + β²) and q = 1/(1 + β²), with β held at most 1e100, as fbeta.sql takes them
# (10¹⁰⁰ as a power: polars 1.39's SQL parser reads no exponent literal)
_HELD = "LEAST({{ beta }}, POWER(CAST(10 AS DOUBLE), 100))"
R = f"({_HELD} * {_HELD} / CAST(1 + {_HELD} * {_HELD} AS DOUBLE))"
Q = f"(1 / CAST(1 + {_HELD} * {_HELD} AS DOUBLE))"

BETA = Param(
    "beta",
    float,
    1.0,
    "recall counts beta times as much as precision",
    low=0,
    low_open=True,
)

SPEC = Metric(
    name="fbeta",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="(1 + β²)·TP / ((1 + β²)·TP + β²·FN + FP)",
    template="classification/fbeta.sql",
    intermediates=("confusion",),
    params=(BETA, THRESHOLD),
    # TP / (TP + r·FN + q·FP): a ratio of sums over rows, a positive predicted positive
    # counting 1 below, a missed positive r, a false alarm q (a bootstrap by unit sums each unit's)
    sums=SumsOfRows.ratio(
        "CASE WHEN label = 1 AND score >= {{ threshold }} THEN 1 ELSE 0 END",
        f"CASE WHEN score >= {{{{ threshold }}}} THEN (CASE WHEN label = 1 THEN 1 ELSE {Q} END) "
        f"WHEN label = 1 THEN {R} ELSE 0 END",
    ),
    reference="sklearn.metrics.fbeta_score",
    interval=confusion_delta(*fscore_gradient(R, Q)),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, beta: float = 1.0, threshold: float = 0.5) -> pl.Expr:
    """fbeta from each score's positive and negative weight (rows or a histogram)."""
    tp, fp, _, fn = confusion(s, w_pos, w_neg, threshold)
    r, q = fscore_weights(beta)
    return ratio(tp, tp + r * fn + q * fp)


def expr(
    score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, beta: float = 1.0, threshold: float = 0.5
) -> pl.Expr:
    """fbeta = (1 + β²)·TP / ((1 + β²)·TP + β²·FN + FP), weighted; β = 1 is f1.

    NULL only when TP + FP + FN = 0 (see f1).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.7], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.fbeta("score", "label", beta=2)).item()  # TP 2, FP 1, FN 0: 10 / 11
    0.9090909090909091
    """
    return from_histogram(*binary_weights(score, label, weight), beta=beta, threshold=threshold)
