"""switch_dr: switch doubly robust, obp's form: dr whose residual term keeps only the rows
of importance weight at most the cap λ.
"""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.importance_mean import importance_mean
from sqlmetrics.metrics.classification._binary import IntoExpr, col
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.metrics.off_policy._params import CAP
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="switch_dr",
    family="off_policy",
    polars_form="rows",
    summary="Σ k·[q̂ₑ + 1{w ≤ λ}·w·(r − q̂ₐ)] / Σ k",
    template="off_policy/switch_dr.sql",
    intermediates=("model_sums", "switch_sums"),
    needs=("label", "propensity", "target_propensity", "reward_model", "target_reward_model"),
    params=(CAP,),
    label_domain="real",
    higher_is_better=True,
    range=None,
    row_plan=False,
    interval=importance_mean(_rows.corrected_sql(_rows.switched_sql("{{ cap }}"))),
    reference="obp.ope.SwitchDoublyRobust(lambda_=cap)",
)


def expr(
    score: IntoExpr | None,
    label: IntoExpr,
    weight: IntoExpr | None = None,
    *,
    propensity: IntoExpr,
    target_propensity: IntoExpr,
    reward_model: IntoExpr,
    target_reward_model: IntoExpr,
    cap: float = 10.0,
) -> pl.Expr:
    """Σ k·[q̂ₑ + 1{w ≤ λ}·w·(r − q̂ₐ)] / Σ k over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    As obp 0.5.7's ``SwitchDoublyRobust(lambda_=cap)`` (obp/ope/estimators.py: ``q̂ₑ +
    (iw <= lambda_) * iw * (reward - q_hat_factual)``, then ``.mean()``): a row whose
    weight passes the cap keeps the model's q̂ₑ and drops its residual. Wang, Agarwal
    and Dudík (2017)'s SWITCH differs: it uses IPS on the actions of w ≤ λ and the
    model's value on the actions of w > λ (Σ over those actions of πₑ·q̂), which needs
    q̂ of every action, not of the logged one.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> # (1.6 + 0.5·(−0.1)) / 4
    >>> df.select(smp.switch_dr(None, "click", **both, cap=1.5)).item()
    0.38749999999999996
    """
    k, iw = _rows.model_rows(label, weight, propensity, target_propensity, reward_model, target_reward_model)
    corrected = col(target_reward_model).cast(pl.Float64) + _rows.switched(cap, iw) * _rows.residual(
        label, reward_model
    )
    return _rows.row_mean(corrected, k)
