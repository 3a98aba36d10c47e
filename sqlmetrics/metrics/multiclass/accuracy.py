"""multiclass_accuracy: the share of rows whose predicted class is the true class."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification._binary import ratio
from sqlmetrics.metrics.multiclass._classes import COUNTS, Frame, class_interval, per_slice
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="multiclass_accuracy",
    family="multiclass",
    polars_form="class_counts",
    summary="Σ w·[ŷ = y] / Σ w: share of rows whose predicted class is the true class",
    template="multiclass/accuracy.sql",
    intermediates=("class_counts",),
    needs=("label", "prediction"),
    label_domain="class",
    reference="sklearn.metrics.accuracy_score",
    interval=class_interval("CAST(NULL AS DOUBLE)", "1", "0", "0"),  # Σ tp / n: 1 on the diagonal,
)


def from_class_counts(tp: pl.Expr, support: pl.Expr, predicted: pl.Expr) -> pl.Expr:
    """Accuracy of one slice from its class counts: Σ tp / Σ support."""
    return ratio(tp.sum(), support.sum())


def frame(data: Frame, *, label: str, prediction: str, weight: str | None = None, by: Sequence[str] = ()) -> Frame:
    """accuracy = Σ w·[ŷ = y] / Σ w, per slice of ``by``.

    Equal to micro-averaged precision, recall and F1. NULL on an empty slice (or one
    whose weights are all 0; scikit-learn raises there). Rows with a NULL label,
    prediction or weight are left out.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["cat", "dog", "pig", "cat", "dog", "pig"],
    ...                    "y_hat": ["cat", "pig", "dog", "cat", "cat", "dog"]})
    >>> smp.multiclass_accuracy(df, label="y", prediction="y_hat").item()  # rows 1 and 4 right: 2/6
    0.3333333333333333
    """
    return per_slice(
        data, from_class_counts(*COUNTS).alias("accuracy"), label=label, prediction=prediction, weight=weight, by=by
    )
