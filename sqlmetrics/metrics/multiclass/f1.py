"""multiclass_f1: the harmonic mean of precision and recall per class, averaged over the classes."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification.f1 import HALF
from sqlmetrics.metrics.multiclass import fbeta
from sqlmetrics.metrics.multiclass._classes import (
    AVERAGE,
    COUNTS,
    Frame,
    averaged_gradient,
    class_interval,
    fscore_gradient,
    per_slice,
)
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="multiclass_f1",
    family="multiclass",
    polars_form="class_counts",
    summary="2·TP_c / (2·TP_c + FP_c + FN_c) per class c, averaged (macro, micro or weighted)",
    template="multiclass/f1.sql",
    intermediates=("class_counts",),
    needs=("label", "prediction"),
    params=(AVERAGE,),
    label_domain="class",
    per_class="fscore",  # its column of per_class_values (at beta 1)
    reference="sklearn.metrics.f1_score(zero_division=np.nan)",
    interval=class_interval(*averaged_gradient(*fscore_gradient(HALF, HALF))),
)


def from_class_counts(tp: pl.Expr, support: pl.Expr, predicted: pl.Expr, *, average: str = "macro") -> pl.Expr:
    """Averaged F1 of one slice from its class counts: F-beta with β = 1."""
    return fbeta.from_class_counts(tp, support, predicted, beta=1.0, average=average)


def frame(
    data: Frame,
    *,
    label: str,
    prediction: str,
    weight: str | None = None,
    by: Sequence[str] = (),
    average: str = "macro",
) -> Frame:
    """F1_c = 2·tp_c / (support_c + predicted_c) = 2·TP_c / (2·TP_c + FP_c + FN_c) for
    every class c present in the slice's labels or predictions, averaged as
    scikit-learn's ``f1_score(average=..., zero_division=np.nan)`` (see
    ``multiclass_fbeta``: a class is left out of the ``macro`` and ``weighted`` means only
    when all its rows weigh 0). NULL on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["cat", "dog", "pig", "cat", "dog", "pig"],
    ...                    "y_hat": ["cat", "pig", "dog", "cat", "cat", "dog"]})
    >>> # cat: 2·2 / (2 + 3) = 0.8, dog and pig: 0; 0.8 / 3
    >>> smp.multiclass_f1(df, label="y", prediction="y_hat").item()
    0.26666666666666666
    >>> smp.multiclass_f1(df, label="y", prediction="y_hat", average="micro").item()  # = accuracy, 2/6
    0.3333333333333333
    """
    metric = from_class_counts(*COUNTS, average=AVERAGE.validate(SPEC.name, average)).alias("f1")
    return per_slice(data, metric, label=label, prediction=prediction, weight=weight, by=by)
