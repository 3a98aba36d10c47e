"""multiclass_balanced_accuracy: the mean of the classes' recalls."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification._binary import ratio
from sqlmetrics.metrics.multiclass._classes import (
    COUNTS,
    RECALL_GRADIENT,
    Frame,
    averaged_gradient,
    class_interval,
    per_slice,
)
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="multiclass_balanced_accuracy",
    family="multiclass",
    polars_form="class_counts",
    summary="mean over classes c of TP_c / (TP_c + FN_c): each class counts equally",
    template="multiclass/balanced_accuracy.sql",
    intermediates=("class_counts",),
    needs=("label", "prediction"),
    label_domain="class",
    reference="sklearn.metrics.balanced_accuracy_score",
    interval=class_interval(*averaged_gradient(*RECALL_GRADIENT, average="'macro'")),  # macro-averaged recall,
)


def from_class_counts(tp: pl.Expr, support: pl.Expr, predicted: pl.Expr) -> pl.Expr:
    """Balanced accuracy of one slice from its class counts: the mean of tp_c / support_c
    over the classes with support."""
    return ratio(tp, support).mean()


def frame(data: Frame, *, label: str, prediction: str, weight: str | None = None, by: Sequence[str] = ()) -> Frame:
    """balanced_accuracy = mean over classes c of recall_c = TP_c / (TP_c + FN_c), per
    slice of ``by``: each class counts equally whatever its share of the rows.

    As scikit-learn's ``balanced_accuracy_score``, a class that is only predicted (never
    a label) has no recall and is left out; equal to macro-averaged recall. NULL on an
    empty slice (or one whose weights are all 0). Rows with a NULL label, prediction or
    weight are left out. (scikit-learn's ``adjusted=True`` is not offered.)

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["cat", "cat", "cat", "cat", "dog", "pig"],
    ...                    "y_hat": ["cat", "cat", "cat", "dog", "dog", "cat"]})
    >>> # cat 3 of 4, dog 1 of 1, pig 0 of 1: (0.75 + 1 + 0) / 3
    >>> smp.multiclass_balanced_accuracy(df, label="y", prediction="y_hat").item()
    0.5833333333333334
    """
    metric = from_class_counts(*COUNTS).alias("balanced_accuracy")
    return per_slice(data, metric, label=label, prediction=prediction, weight=weight, by=by)
