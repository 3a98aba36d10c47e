"""multiclass_precision: precision per class, averaged over the classes."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.multiclass._classes import (
    AVERAGE,
    COUNTS,
    PRECISION_GRADIENT,
    Frame,
    averaged,
    averaged_gradient,
    class_interval,
    per_slice,
    precision_terms,
)
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="multiclass_precision",
    family="multiclass",
    polars_form="class_counts",
    summary="TP_c / (TP_c + FP_c) per class c, averaged (macro, micro or weighted)",
    template="multiclass/precision.sql",
    intermediates=("class_counts",),
    needs=("label", "prediction"),
    params=(AVERAGE,),
    label_domain="class",
    per_class="precision",  # its column of per_class_values
    reference="sklearn.metrics.precision_score(zero_division=np.nan)",
    interval=class_interval(*averaged_gradient(*PRECISION_GRADIENT)),
)


def from_class_counts(tp: pl.Expr, support: pl.Expr, predicted: pl.Expr, *, average: str = "macro") -> pl.Expr:
    """Averaged precision of one slice from its class counts."""
    return averaged(*precision_terms(tp, support, predicted), support, average)


def frame(
    data: Frame,
    *,
    label: str,
    prediction: str,
    weight: str | None = None,
    by: Sequence[str] = (),
    average: str = "macro",
) -> Frame:
    """precision_c = TP_c / (TP_c + FP_c) = tp_c / predicted_c for every class c present
    in the slice's labels or predictions, averaged as scikit-learn's
    ``precision_score(average=..., zero_division=np.nan)``: a class never predicted has
    no precision and is left out of the ``macro`` mean and of the ``weighted`` mean
    (weighted by each class's support); ``micro`` is Σ tp / Σ predicted (= accuracy).
    NULL when no class was predicted (an empty slice).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["cat", "dog", "pig", "cat", "dog", "pig"],
    ...                    "y_hat": ["cat", "pig", "dog", "cat", "cat", "dog"]})
    >>> # cat: 2 of 3 predicted right, dog: 0 of 2, pig: 0 of 1; (2/3 + 0 + 0) / 3
    >>> smp.multiclass_precision(df, label="y", prediction="y_hat").item()
    0.2222222222222222
    """
    metric = from_class_counts(*COUNTS, average=AVERAGE.validate(SPEC.name, average)).alias("precision")
    return per_slice(data, metric, label=label, prediction=prediction, weight=weight, by=by)
