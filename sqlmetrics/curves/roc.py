"""roc_curve: the receiver operating characteristic as a long table, scikit-learn's points."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import polars as pl

from sqlmetrics.curves._curve import DROP_INTERMEDIATE, MAX_POINTS, CurveKind, compute
from sqlmetrics.curves._thresholds import is_end, leading_point, thresholds
from sqlmetrics.metrics.classification import ratio
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="roc_curve",
    family="curve",
    summary="(fpr, tpr) at every distinct score threshold, from (0, 0) at threshold +inf",
    template="curves/roc.sql",
    intermediates=("score_hist",),
    higher_is_better=None,
    range=None,
    reference="sklearn.metrics.roc_curve",
)


def from_score_hist(hist: pl.DataFrame, slices: list[str], *, drop_intermediate: bool) -> pl.LazyFrame:
    """The curve's points from the score histogram (see ``sm.roc_curve``)."""
    steps = thresholds(hist, slices)
    kept = steps
    if drop_intermediate:
        turns = (pl.col("w_pos") != pl.col("next_w_pos")) | (pl.col("w_neg") != pl.col("next_w_neg"))
        kept = steps.filter(is_end() | turns.fill_null(False))
    start = leading_point(
        steps,
        slices,
        fpr=pl.when(pl.col("negatives") > 0).then(0.0),
        tpr=pl.when(pl.col("positives") > 0).then(0.0),
    )
    rates = kept.select(
        *slices,
        "point",
        threshold="score",
        fpr=ratio(pl.col("fp"), pl.col("negatives")),
        tpr=ratio(pl.col("tp"), pl.col("positives")),
    )
    return pl.concat([start, rates])


KIND = CurveKind(
    spec=SPEC,
    steps=(("curve_thresholds", "curves/thresholds.sql"), ("curve", SPEC.template)),
    params=(DROP_INTERMEDIATE, MAX_POINTS),
    columns=("threshold", "fpr", "tpr"),
    order="point",
    axes=("fpr", "tpr"),
    axis_titles=("false positive rate (FPR)", "true positive rate (TPR)"),
    compute=from_score_hist,
)


def roc_curve(
    source: Any,
    *,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    drop_intermediate: bool = False,
    max_points: int | None = None,
    engine: str = "duckdb",
    con: duckdb.DuckDBPyConnection | None = None,
) -> pl.DataFrame:
    """The ROC curve of each slice: the slice columns, then ``threshold``, ``fpr``, ``tpr``.

    scikit-learn's ``roc_curve(y, s, sample_weight=w, drop_intermediate=False)`` as rows,
    sorted by slice and then by threshold, descending. The first row of a slice is
    (threshold +inf, fpr 0, tpr 0); then, for every distinct score t (tied scores form one
    threshold) predicting ``score >= t`` positive:

        fpr = Σ w over negatives with score >= t / Σ w over negatives
        tpr = Σ w over positives with score >= t / Σ w over positives

    The trapezoid area under the points is ``auc``. Rows of weight 0 set no threshold
    (as in scikit-learn). A slice without negatives has NULL fpr on every row, one
    without positives NULL tpr (scikit-learn: nan and a warning); a slice without used
    rows has no rows.

    ``drop_intermediate=True`` keeps, besides the first and last threshold, only the
    points where the curve turns: a point is dropped when its step (Δfp, Δtp) equals the
    next one's, i.e. it lies on a straight run (scikit-learn's rule, its default; the
    default here is False so that every threshold has its row, as in ``pr_curve``).
    ``max_points`` thins each slice to at most that many points, keeping the first and
    the last; the area changes by at most 1/(2·⌊max_points/2⌋) (``sqlmetrics/curves/_thin.py``
    states the rule and proves the bound). Arguments otherwise as in ``sm.evaluate``;
    labels must be 0/1 and scores not NaN (any real score: only the order matters).

    >>> import polars as pl, sqlmetrics as sm
    >>> df = pl.DataFrame({"label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    >>> sm.roc_curve(df).rows()  # scikit-learn's docstring example
    [(inf, 0.0, 0.0), (0.8, 0.0, 0.5), (0.4, 0.5, 0.5), (0.35, 0.5, 1.0), (0.1, 1.0, 1.0)]
    """
    return compute(
        KIND,
        source,
        label=label,
        score=score,
        weight=weight,
        by=by,
        engine=engine,
        con=con,
        drop_intermediate=drop_intermediate,
        max_points=max_points,
    )
