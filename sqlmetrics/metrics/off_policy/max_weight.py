"""max_weight: the largest importance weight w = πₑ/π₀ over the used rows."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="max_weight",
    family="off_policy",
    polars_form="rows",
    summary="max w over rows of weight > 0",
    template="off_policy/max_weight.sql",
    intermediates=("importance_sums",),
    needs=("label", "propensity", "target_propensity"),
    label_domain="real",
    higher_is_better=None,
    range=(0.0, float("inf")),
    row_plan=False,
    reference="numpy.max of obp's importance weights action_dist[a] / pscore",
)


def expr(
    score: IntoExpr | None,
    label: IntoExpr,
    weight: IntoExpr | None = None,
    *,
    propensity: IntoExpr,
    target_propensity: IntoExpr,
) -> pl.Expr:
    """max w over rows of weight > 0 over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    The weights are obp 0.5.7's ``iw = action_dist[a] / pscore``
    (obp/ope/estimators.py); a row weight only decides whether a row counts (0: it does
    not).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> df.select(smp.max_weight(None, "click", **logged)).item()
    2.0
    """
    k, iw = (
        _rows.row_weight(label, weight, propensity, target_propensity),
        _rows.importance(propensity, target_propensity),
    )
    return iw.filter(k > 0).max()
