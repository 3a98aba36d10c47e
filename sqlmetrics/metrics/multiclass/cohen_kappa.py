"""cohen_kappa: agreement of predicted and true classes beyond chance."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sqlmetrics.metrics.multiclass._classes import COUNTS, Frame, per_slice
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="cohen_kappa",
    family="multiclass",
    summary="(p_o − p_e) / (1 − p_e): observed agreement beyond the agreement expected by chance",
    template="multiclass/cohen_kappa.sql",
    reads="class_counts",
    needs=("label", "prediction"),
    label_domain="class",
    range=(-1.0, 1.0),
    reference="sklearn.metrics.cohen_kappa_score",
)


def from_class_counts(tp: pl.Expr, support: pl.Expr, predicted: pl.Expr) -> pl.Expr:
    """Cohen's kappa of one slice from its class counts (NULL with one class in all)."""
    n, correct, chance = support.sum(), tp.sum(), (support * predicted).sum()
    classes = ((support > 0) | (predicted > 0)).sum()
    return pl.when(classes > 1).then((correct * n - chance) / (n * n - chance))


def frame(data: Frame, *, label: str, prediction: str, weight: str | None = None, by: Sequence[str] = ()) -> Frame:
    """κ = (p_o − p_e) / (1 − p_e) = (c·n − Σ_k t_k·p_k) / (n² − Σ_k t_k·p_k), with
    p_o = c / n the observed agreement (accuracy), p_e = Σ_k t_k·p_k / n² the agreement
    expected from the class frequencies alone, n the total weight, c the weight of correct
    rows, t_k and p_k the true and predicted weight of class k: scikit-learn's unweighted
    ``cohen_kappa_score`` (label as ``y1``, prediction as ``y2``; κ is symmetric).

    NULL when every row of positive weight has the same true and predicted class (1 − p_e
    is 0; scikit-learn returns nan there) and on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["a", "a", "b", "b", "c", "c"],
    ...                    "y_hat": ["a", "a", "b", "c", "c", "c"]})
    >>> # n 6, c 5, Σ t·p = 2·2 + 2·1 + 2·3 = 12: (30 − 12) / (36 − 12)
    >>> smp.cohen_kappa(df, label="y", prediction="y_hat").item()
    0.75
    """
    metric = from_class_counts(*COUNTS).alias("cohen_kappa")
    return per_slice(data, metric, label=label, prediction=prediction, weight=weight, by=by)
