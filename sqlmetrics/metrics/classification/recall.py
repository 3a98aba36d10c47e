"""recall: the weighted share of positives predicted positive (true positive rate)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.proportion import proportion
from sqlmetrics.metrics.classification._binary import THRESHOLD, IntoExpr, binary_weights, confusion, ratio
from sqlmetrics.spec import Metric, SumsOfRows

SPEC = Metric(
    name="recall",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="TP / (TP + FN): share of positives predicted positive",
    template="classification/recall.sql",
    intermediates=("confusion",),
    params=(THRESHOLD,),
    # tp / (tp + fn): a ratio of sums over rows
    # (a bootstrap by unit sums each unit's)
    sums=SumsOfRows.ratio("CASE WHEN label = 1 AND score >= {{ threshold }} THEN 1 ELSE 0 END", "label"),
    reference="sklearn.metrics.recall_score",
    interval=proportion("tp", "tp + fn"),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, threshold: float = 0.5) -> pl.Expr:
    """recall from each score's positive and negative weight (rows or a histogram)."""
    tp, _, _, fn = confusion(s, w_pos, w_neg, threshold)
    return ratio(tp, tp + fn)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, threshold: float = 0.5) -> pl.Expr:
    """recall = TP / (TP + FN), weighted; NULL when the slice has no positive.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.7], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.recall("score", "label", threshold=0.8)).item()  # TP 1 (0.9), FN 1 (0.7)
    0.5
    """
    return from_histogram(*binary_weights(score, label, weight), threshold=threshold)
