"""mean_weight: the mean importance weight w = πₑ/π₀: 1 in expectation, so one far from 1
says the propensities are wrong.
"""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.importance_mean import importance_mean
from sqlmetrics.metrics.classification._binary import IntoExpr
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="mean_weight",
    family="off_policy",
    polars_form="rows",
    summary="Σ k·w / Σ k",
    template="off_policy/mean_weight.sql",
    intermediates=("importance_sums",),
    needs=("label", "propensity", "target_propensity"),
    label_domain="real",
    higher_is_better=None,
    range=(0.0, float("inf")),
    row_plan=False,
    reference="numpy.mean of obp's importance weights action_dist[a] / pscore",
    interval=importance_mean(_rows.IMPORTANCE),
)


def expr(
    score: IntoExpr | None,
    label: IntoExpr,
    weight: IntoExpr | None = None,
    *,
    propensity: IntoExpr,
    target_propensity: IntoExpr,
) -> pl.Expr:
    """Σ k·w / Σ k over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    The weights are obp 0.5.7's ``iw = action_dist[a] / pscore``
    (obp/ope/estimators.py). Under the logging policy E[w] = 1 (less where πₑ puts mass
    on actions π₀ never takes): a mean far from 1 says the propensities are wrong.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> # (2 + 0 + 2 + 0.5) / 4
    >>> df.select(smp.mean_weight(None, "click", **logged)).item()
    1.125
    """
    k, iw = (
        _rows.row_weight(label, weight, propensity, target_propensity),
        _rows.importance(propensity, target_propensity),
    )
    return _rows.row_mean(iw, k)
