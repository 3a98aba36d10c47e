"""ips: inverse propensity scoring: the reward the target policy would earn, each logged row weighted by w = πₑ/π₀."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.importance_mean import importance_mean
from sqlmetrics.metrics.classification._binary import IntoExpr, col
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="ips",
    family="off_policy",
    polars_form="rows",
    summary="Σ k·w·r / Σ k",
    template="off_policy/ips.sql",
    intermediates=("importance_sums",),
    needs=("label", "propensity", "target_propensity"),
    label_domain="real",
    higher_is_better=True,
    range=None,
    row_plan=False,
    interval=importance_mean(f"{_rows.IMPORTANCE} * label"),
    reference="obp.ope.InverseProbabilityWeighting",
)


def expr(
    score: IntoExpr | None,
    label: IntoExpr,
    weight: IntoExpr | None = None,
    *,
    propensity: IntoExpr,
    target_propensity: IntoExpr,
) -> pl.Expr:
    """Σ k·w·r / Σ k over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    As obp 0.5.7's ``InverseProbabilityWeighting`` (obp/ope/estimators.py,
    ``_estimate_round_rewards``: ``reward * iw``, then ``.mean()``), with row weights as
    frequencies (a row of weight k is k rows); vw-estimators' ``ips`` likewise.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> # (2·1 + 0·0 + 2·1 + 0.5·0) / 4
    >>> df.select(smp.ips(None, "click", **logged)).item()
    1.0
    """
    k, iw = (
        _rows.row_weight(label, weight, propensity, target_propensity),
        _rows.importance(propensity, target_propensity),
    )
    return _rows.row_mean(iw * col(label).cast(pl.Float64), k)
