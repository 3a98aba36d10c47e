"""balanced_accuracy: the mean of the recalls of the positives and of the negatives."""

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

# the gradient of (tp/P + tn/N)/2 (or of the one term whose class is present) in the
# confusion cells' shares, P = tp + fn, N = tn + fp (intervals/confusion_delta.py)
_TERMS = "CASE WHEN tp + fn > 0 AND tn + fp > 0 THEN 2 ELSE 1 END"
_POSITIVES = f"CAST(NULLIF((tp + fn) * (tp + fn) * ({_TERMS}), 0) AS DOUBLE)"
_NEGATIVES = f"CAST(NULLIF((tn + fp) * (tn + fp) * ({_TERMS}), 0) AS DOUBLE)"
GRADIENT = (
    f"CASE WHEN tp + fn > 0 THEN fn / {_POSITIVES} ELSE 0 END",
    f"CASE WHEN tn + fp > 0 THEN -tn / {_NEGATIVES} ELSE 0 END",
    f"CASE WHEN tn + fp > 0 THEN fp / {_NEGATIVES} ELSE 0 END",
    f"CASE WHEN tp + fn > 0 THEN -tp / {_POSITIVES} ELSE 0 END",
)

SPEC = Metric(
    name="balanced_accuracy",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="(TP / (TP + FN) + TN / (TN + FP)) / 2: mean recall of the two classes (score >= threshold)",
    template="classification/balanced_accuracy.sql",
    intermediates=("confusion",),
    params=(THRESHOLD,),
    reference="sklearn.metrics.balanced_accuracy_score",
    interval=confusion_delta(*GRADIENT),
    # as balanced_accuracy.sql: a class absent from the labels is left out of the mean
    sums=of_confusion_shares(
        "CASE WHEN tp + fn > 0 AND tn + fp > 0 "
        "THEN (tp / CAST(tp + fn AS DOUBLE) + tn / CAST(tn + fp AS DOUBLE)) / CAST(2 AS DOUBLE) "
        "WHEN tp + fn > 0 THEN tp / CAST(tp + fn AS DOUBLE) WHEN tn + fp > 0 THEN tn / CAST(tn + fp AS DOUBLE) END"
    ),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, *, threshold: float = 0.5) -> pl.Expr:
    """balanced_accuracy from each score's positive and negative weight (rows or a histogram)."""
    tp, fp, tn, fn = confusion(s, w_pos, w_neg, threshold)
    return pl.mean_horizontal(ratio(tp, tp + fn), ratio(tn, tn + fp))  # a NULL recall is left out


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None, *, threshold: float = 0.5) -> pl.Expr:
    """balanced_accuracy = (TP / (TP + FN) + TN / (TN + FP)) / 2, weighted: each class
    counts equally whatever its share of the rows.

    As scikit-learn's ``balanced_accuracy_score``, a class absent from the labels is left
    out: a slice of positives only scores their recall. NULL on an empty slice.
    (scikit-learn's ``adjusted=True``, rescaled so that chance scores 0, is not offered:
    it is ``2·balanced_accuracy − 1``, Youden's J, for two classes.)

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.9, 0.6, 0.4, 0.2, 0.3], "label": [1, 0, 0, 0, 1]})
    >>> df.select(smp.balanced_accuracy("score", "label")).item()  # recall 1/2, specificity 2/3
    0.5833333333333333
    """
    return from_histogram(*binary_weights(score, label, weight), threshold=threshold)
