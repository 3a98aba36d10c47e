"""pr_curve: the precision–recall curve as a long table, scikit-learn's points."""

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
    name="pr_curve",
    family="curve",
    summary="(recall, precision) at every distinct score threshold, from (0, 1) at threshold +inf",
    template="curves/pr.sql",
    intermediates=("score_hist",),
    higher_is_better=None,
    range=None,
    reference="sklearn.metrics.precision_recall_curve",
)


def from_score_hist(hist: pl.DataFrame, slices: list[str], *, drop_intermediate: bool) -> pl.LazyFrame:
    """The curve's points from the score histogram (see ``sm.pr_curve``)."""
    steps = thresholds(hist, slices)
    kept = steps
    if drop_intermediate:
        recall_moves = (pl.col("w_pos") > 0) | (pl.col("next_w_pos") > 0).fill_null(False)
        kept = steps.filter(is_end() | recall_moves)
    start = leading_point(
        steps,
        slices,
        precision=pl.lit(1.0),
        recall=pl.when(pl.col("positives") > 0).then(0.0),
    )
    rates = kept.select(
        *slices,
        "point",
        threshold="score",
        precision=pl.col("tp") / (pl.col("tp") + pl.col("fp")),
        recall=ratio(pl.col("tp"), pl.col("positives")),
    )
    return pl.concat([start, rates])


KIND = CurveKind(
    spec=SPEC,
    steps=(("curve_thresholds", "curves/thresholds.sql"), ("curve", SPEC.template)),
    params=(DROP_INTERMEDIATE, MAX_POINTS),
    columns=("threshold", "precision", "recall"),
    order="point",
    axes=("recall", "precision"),
    axis_titles=("recall", "precision"),
    compute=from_score_hist,
)


def pr_curve(
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
    """The precision–recall curve of each slice: the slice columns, then ``threshold``,
    ``precision``, ``recall``.

    scikit-learn's ``precision_recall_curve(y, s, sample_weight=w)`` as rows, sorted by
    slice and then by threshold, descending (recall increasing; scikit-learn returns the
    reverse order). For every distinct score t predicting ``score >= t`` positive:

        precision = TP / (TP + FP),  recall = TP / Σ w over positives

    with TP, FP the weight of positives and negatives scoring >= t. scikit-learn's last
    point (precision 1, recall 0), which it gives no threshold, is the first row here,
    with threshold +inf (nothing predicted positive), as in ``roc_curve``. The step area
    Σ (R_t − R_t−1)·P_t over the rows is ``average_precision``. Rows of weight 0 set no
    threshold. A slice without positives has NULL recall on every row (scikit-learn sets
    recall to 1 with a warning); a slice without used rows has no rows.

    ``drop_intermediate=True`` keeps, besides the first and last threshold, only the
    points where recall changes into or out of the point (scikit-learn's rule: the
    others lie on a vertical run of equal recall). ``max_points`` thins each slice to at
    most that many points, keeping the first and the last; the step area changes by at
    most (L/B)·min(1, L/4), B = ⌊max_points/2⌋, L = 1 + the total variation of precision
    (``sqlmetrics/curves/_thin.py`` states the rule and proves the bound). Arguments
    otherwise as in ``sm.evaluate``; labels must be 0/1 and scores not NaN.

    >>> import polars as pl, sqlmetrics as sm
    >>> df = pl.DataFrame({"label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    >>> for row in sm.pr_curve(df).rows():  # scikit-learn's docstring example, reversed
    ...     print(row)
    (inf, 1.0, 0.0)
    (0.8, 1.0, 0.5)
    (0.4, 0.5, 0.5)
    (0.35, 0.6666666666666666, 1.0)
    (0.1, 0.5, 1.0)
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
