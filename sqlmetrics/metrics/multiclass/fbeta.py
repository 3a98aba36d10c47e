"""multiclass_fbeta: the F-score per class, averaged over the classes."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification.fbeta import BETA, Q, R
from sqlmetrics.metrics.multiclass._classes import (
    AVERAGE,
    COUNTS,
    Frame,
    averaged,
    averaged_gradient,
    class_interval,
    fscore_gradient,
    fscore_terms,
    per_slice,
)
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="multiclass_fbeta",
    family="multiclass",
    polars_form="class_counts",
    summary="(1 + β²)·TP_c / (β²·(TP_c + FN_c) + TP_c + FP_c) per class c, averaged",
    template="multiclass/fbeta.sql",
    intermediates=("class_counts",),
    needs=("label", "prediction"),
    params=(BETA, AVERAGE),
    label_domain="class",
    per_class="fscore",  # its column of per_class_values (at its beta)
    reference="sklearn.metrics.fbeta_score(zero_division=np.nan)",
    interval=class_interval(*averaged_gradient(*fscore_gradient(R, Q))),
)


def from_class_counts(
    tp: pl.Expr, support: pl.Expr, predicted: pl.Expr, *, beta: float = 1.0, average: str = "macro"
) -> pl.Expr:
    """Averaged F-beta of one slice from its class counts."""
    return averaged(*fscore_terms(tp, support, predicted, beta), support, average)


def frame(
    data: Frame,
    *,
    label: str,
    prediction: str,
    weight: str | None = None,
    by: Sequence[str] = (),
    beta: float = 1.0,
    average: str = "macro",
) -> Frame:
    """F_β,c = (1 + β²)·tp_c / (β²·support_c + predicted_c) for every class c present in
    the slice's labels or predictions (recall weighted β times as much as precision),
    averaged as scikit-learn's ``fbeta_score(average=..., zero_division=np.nan)``. A
    class's F-score is 0 (not undefined) when only its precision or its recall is
    undefined; it is undefined, and left out of the ``macro`` and ``weighted`` means,
    only when the class has neither support nor predictions (all its rows weigh 0).
    ``micro`` pools the counts first (= accuracy). NULL on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["cat", "dog", "pig", "cat", "dog", "pig"],
    ...                    "y_hat": ["cat", "pig", "dog", "cat", "cat", "dog"]})
    >>> # cat: 5·2 / (4·2 + 3) = 10/11, dog and pig: 0; (10/11) / 3 = 10/33
    >>> smp.multiclass_fbeta(df, label="y", prediction="y_hat", beta=2).item()
    0.30303030303030304
    """
    params = {"beta": BETA.validate(SPEC.name, beta), "average": AVERAGE.validate(SPEC.name, average)}
    metric = from_class_counts(*COUNTS, **params).alias("fbeta")
    return per_slice(data, metric, label=label, prediction=prediction, weight=weight, by=by)
