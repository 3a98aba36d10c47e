"""ess: the effective sample size of the importance weights: how many rows the weighted estimate is worth."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="ess",
    family="off_policy",
    polars_form="rows",
    summary="(Σ k·w)² / Σ k·w²",
    template="off_policy/ess.sql",
    intermediates=("importance_sums",),
    needs=("label", "propensity", "target_propensity"),
    weight_count=True,
    label_domain="real",
    higher_is_better=None,
    range=(0.0, float("inf")),
    row_plan=False,
    reference="Kish's effective sample size of the weights w = πₑ/π₀ (obp has none)",
)


def expr(
    score: IntoExpr | None,
    label: IntoExpr,
    weight: IntoExpr | None = None,
    *,
    propensity: IntoExpr,
    target_propensity: IntoExpr,
) -> pl.Expr:
    """(Σ k·w)² / Σ k·w² over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    Kish's effective sample size of the weights, the diagnostic read beside ips: n when
    every weight is equal, far below it when a few rows carry the estimate. obp 0.5.7
    has none; its weights are obp's ``iw = action_dist[a] / pscore``. A weighted count:
    scaling every row weight by c scales it by c.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> # 4.5² / (4 + 0 + 4 + 0.25)
    >>> df.select(smp.ess(None, "click", **logged)).item()
    2.454545454545454
    """
    k, iw = (
        _rows.row_weight(label, weight, propensity, target_propensity),
        _rows.importance(propensity, target_propensity),
    )
    total, squares = (k * iw).sum(), (k * iw * iw).sum()
    return pl.when(squares.is_infinite()).then(squares).otherwise(total * _rows.ratio(total, squares))
