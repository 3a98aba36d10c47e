"""f1: the harmonic mean of precision and recall."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.confusion_delta import confusion_delta
from sqlmetrics.metrics.classification._binary import (
    THRESHOLD,
    IntoExpr,
    binary_weights,
    confusion,
    fscore_gradient,
    ratio,
)
from sqlmetrics.spec import Metric, SumsOfRows

HALF = "(1 / CAST(2 AS DOUBLE))"  # F1 = tp / (tp + fn/2 + fp/2)

SPEC = Metric(
    name="f1",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="2·TP / (2·TP + FP + FN): harmonic mean of precision and recall",
    template="classification/f1.sql",
    intermediates=("confusion",),
    params=(THRESHOLD,),
    # 2·tp / (2·tp + fp + fn) = 2·tp / (positives + predicted positives): a ratio of sums over rows
    # (a bootstrap by unit sums each unit's)
    sums=SumsOfRows.ratio(
        "CASE WHEN label = 1 AND score >= {{ threshold }} THEN 2 ELSE 0 END",
        "label + CASE WHEN score >= {{ threshold }} THEN 1 ELSE 0 END",
    ),
    reference="sklearn.metrics.f1_score",
    interval=confusion_delta(*fscore_gradient(HALF, HALF)),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, threshold: float = 0.5) -> pl.Expr:
    """f1 from each score's positive and negative weight (rows or a histogram)."""
    tp, fp, _, fn = confusion(s, w_pos, w_neg, threshold)
    return ratio(2 * tp, 2 * tp + fp + fn)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, threshold: float = 0.5) -> pl.Expr:
    """f1 = 2·TP / (2·TP + FP + FN), weighted.

    Written this way it is 0, not undefined, when precision or recall alone is undefined
    (as scikit-learn since 1.3); NULL only when TP + FP + FN = 0.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.7], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.f1("score", "label")).item()  # TP 2, FP 1, FN 0: 4 / 5
    0.8
    """
    return from_histogram(*binary_weights(score, label, weight), threshold=threshold)
