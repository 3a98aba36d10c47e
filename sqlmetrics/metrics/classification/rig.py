"""rig: relative information gain, 1 − ne (torchrec's normalized entropy)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights
from sqlmetrics.metrics.classification.ne import influence_interval, normalized_entropy
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="rig",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="1 − ne: the share of the base rate's entropy the scores explain",
    template="classification/rig.sql",
    intermediates=("score_hist",),
    score_domain="probability",
    higher_is_better=True,
    range=(float("-inf"), 1.0),
    # ne's clamp keeps a perfect score's rig at 1 − 1.4e-12
    best_reached=False,
    reference="1 − torchrec.metrics.ne (written out in tests/metrics/classification/ne.py)",
    interval=influence_interval("-"),
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """rig from each score's positive and negative weight (rows or a histogram)."""
    return 1 - normalized_entropy(s, w_pos, w_neg)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """rig = 1 − ne, the relative information gain: the share of the entropy of the
    slice's base rate that the scores explain (see ``ne``: torchrec's normalized entropy
    and its clamp). 0 is no better than predicting the base rate, 1 perfect; higher is
    better. NULL for a one-class slice or no weight.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.8, 0.4, 0.3, 0.1], "label": [1, 1, 0, 0]})
    >>> round(df.select(smp.rig("score", "label")).item(), 12)  # 1 − ne
    0.422391885988
    """
    return from_histogram(*binary_weights(score, label, weight))
