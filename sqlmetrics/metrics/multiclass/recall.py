"""multiclass_recall: recall per class, averaged over the classes."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.multiclass._classes import (
    AVERAGE,
    COUNTS,
    RECALL_GRADIENT,
    Frame,
    averaged,
    averaged_gradient,
    class_interval,
    per_slice,
    recall_terms,
)
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="multiclass_recall",
    family="multiclass",
    polars_form="class_counts",
    summary="TP_c / (TP_c + FN_c) per class c, averaged (macro, micro or weighted)",
    template="multiclass/recall.sql",
    intermediates=("class_counts",),
    needs=("label", "prediction"),
    params=(AVERAGE,),
    label_domain="class",
    per_class="recall",  # its column of per_class_values
    reference="sklearn.metrics.recall_score(zero_division=np.nan)",
    interval=class_interval(*averaged_gradient(*RECALL_GRADIENT)),
)


def from_class_counts(tp: pl.Expr, support: pl.Expr, predicted: pl.Expr, *, average: str = "macro") -> pl.Expr:
    """Averaged recall of one slice from its class counts."""
    return averaged(*recall_terms(tp, support, predicted), support, average)


def frame(
    data: Frame,
    *,
    label: str,
    prediction: str,
    weight: str | None = None,
    by: Sequence[str] = (),
    average: str = "macro",
) -> Frame:
    """recall_c = TP_c / (TP_c + FN_c) = tp_c / support_c for every class c present in
    the slice's labels or predictions, averaged as scikit-learn's
    ``recall_score(average=..., zero_division=np.nan)``: a class that is only predicted
    (support 0) has no recall and is left out of the ``macro`` mean; ``weighted``
    (weighted by support) is Σ tp / Σ support, as is ``micro`` (= accuracy). NULL on an
    empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["cat", "dog", "pig", "cat", "dog", "pig"],
    ...                    "y_hat": ["cat", "pig", "dog", "cat", "cat", "dog"]})
    >>> # cat: 2 of 2 found, dog: 0 of 2, pig: 0 of 2; (1 + 0 + 0) / 3
    >>> smp.multiclass_recall(df, label="y", prediction="y_hat").item()
    0.3333333333333333
    """
    metric = from_class_counts(*COUNTS, average=AVERAGE.validate(SPEC.name, average)).alias("recall")
    return per_slice(data, metric, label=label, prediction=prediction, weight=weight, by=by)
