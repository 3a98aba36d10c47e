"""specificity: the weighted share of negatives predicted negative (true negative rate)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.proportion import proportion
from sqlmetrics.metrics.classification._binary import THRESHOLD, IntoExpr, binary_weights, confusion, ratio
from sqlmetrics.spec import Metric, SumsOfRows

SPEC = Metric(
    name="specificity",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="TN / (TN + FP): share of negatives predicted negative",
    template="classification/specificity.sql",
    intermediates=("confusion",),
    params=(THRESHOLD,),
    # tn / (tn + fp): a ratio of sums over rows
    # (a bootstrap by unit sums each unit's)
    sums=SumsOfRows.ratio("CASE WHEN label = 0 AND score < {{ threshold }} THEN 1 ELSE 0 END", "1 - label"),
    reference="sklearn.metrics.recall_score(pos_label=0)",
    interval=proportion("tn", "tn + fp"),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, threshold: float = 0.5) -> pl.Expr:
    """specificity from each score's positive and negative weight (rows or a histogram)."""
    _, fp, tn, _ = confusion(s, w_pos, w_neg, threshold)
    return ratio(tn, tn + fp)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, threshold: float = 0.5) -> pl.Expr:
    """specificity = TN / (TN + FP), weighted; NULL when the slice has no negative.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.7], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.specificity("score", "label")).item()  # TN 2 (0.4, 0.2), FP 1 (0.6)
    0.6666666666666666
    """
    return from_histogram(*binary_weights(score, label, weight), threshold=threshold)
