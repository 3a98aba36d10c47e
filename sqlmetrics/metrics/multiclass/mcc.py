"""multiclass_mcc: the Matthews correlation coefficient of predicted and true classes."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.classification._binary import ratio
from sqlmetrics.metrics.multiclass._classes import COUNTS, Frame, class_interval, per_slice
from sqlmetrics.spec import Metric

# The class terms of mcc's gradient in the cells' shares (intervals/class_confusion_delta.py).
# Over shares (n = 1), mcc = (C − Σ t_k·p_k) / √(A·B), A = 1 − Σ p_k², B = 1 − Σ t_k²,
# C = Σ tp_k: with the homogeneous form (C·n − Σ t·p) / √((n² − Σ p²)(n² − Σ t²)),
#   ∂mcc/∂q_ij = ([i = j] + C − p_i − t_j) / √(A·B) − mcc·((1 − p_j)/A + (1 − t_i)/B),
# so the diagonal term is 1/√(A·B), the true class i's (C − p_i)/√(A·B) − mcc·(1 − t_i)/B
# and the predicted class j's −t_j/√(A·B) − mcc·(1 − p_j)/A (t: support, p: predicted).
_ROOT = "SQRT((1 - predicted_squares) * (1 - support_squares))"
_MCC = f"((correct - agreement) / CAST(NULLIF({_ROOT}, 0) AS DOUBLE))"
GRADIENT = (
    "CAST(NULL AS DOUBLE)",
    f"1 / CAST(NULLIF({_ROOT}, 0) AS DOUBLE)",
    f"(correct - predicted) / CAST(NULLIF({_ROOT}, 0) AS DOUBLE)"
    f" - {_MCC} * (1 - support) / CAST(NULLIF(1 - support_squares, 0) AS DOUBLE)",
    f"-support / CAST(NULLIF({_ROOT}, 0) AS DOUBLE)"
    f" - {_MCC} * (1 - predicted) / CAST(NULLIF(1 - predicted_squares, 0) AS DOUBLE)",
)

SPEC = Metric(
    name="multiclass_mcc",
    family="multiclass",
    polars_form="class_counts",
    summary="(c·n − Σ t_k·p_k) / √((n² − Σ p_k²)·(n² − Σ t_k²)), the multi-class Matthews form",
    template="multiclass/mcc.sql",
    intermediates=("class_counts",),
    needs=("label", "prediction"),
    label_domain="class",
    range=(-1.0, 1.0),
    reference="sklearn.metrics.matthews_corrcoef",
    interval=class_interval(*GRADIENT),
)


def from_class_counts(tp: pl.Expr, support: pl.Expr, predicted: pl.Expr) -> pl.Expr:
    """MCC of one slice from its class counts (NULL when either side is one class). Each
    count is divided by the slice's total weight first (the same value), so that no
    product of weights overflows or underflows."""
    total = support.sum()
    tp, support, predicted = (ratio(count, total) for count in (tp, support, predicted))
    n, correct = support.sum(), tp.sum()
    covariance = correct * n - (support * predicted).sum()
    spread = (n * n - (predicted * predicted).sum()) * (n * n - (support * support).sum())
    two_sided = ((predicted > 0).sum() > 1) & ((support > 0).sum() > 1)
    return pl.when(two_sided).then(covariance / spread.sqrt())


def frame(data: Frame, *, label: str, prediction: str, weight: str | None = None, by: Sequence[str] = ()) -> Frame:
    """MCC = (c·n − Σ_k t_k·p_k) / √((n² − Σ_k p_k²)·(n² − Σ_k t_k²)), with n the total
    weight, c the weight of correct rows, t_k the true and p_k the predicted weight of
    class k: scikit-learn's ``matthews_corrcoef`` (with two classes, the binary MCC).

    NULL when all weight is predicted as one class or all of it belongs to one true
    class (the denominator is 0; scikit-learn returns 0.0 there), and on an empty slice.
    The test is on the classes carrying weight rather than on the rounded denominator,
    so it holds for any weights.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["a", "a", "b", "b", "c", "c"],
    ...                    "y_hat": ["a", "a", "b", "c", "c", "c"]})
    >>> # n 6, c 5, t = (2, 2, 2), p = (2, 1, 3): (30 − 12) / √((36 − 14)·(36 − 12)) = 18 / √528
    >>> round(smp.multiclass_mcc(df, label="y", prediction="y_hat").item(), 12)  # the classes' order varies
    0.783349451801
    """
    metric = from_class_counts(*COUNTS).alias("mcc")
    return per_slice(data, metric, label=label, prediction=prediction, weight=weight, by=by)
