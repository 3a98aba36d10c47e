"""dr_os: doubly robust with optimistic shrinkage: dr with each importance weight w replaced by λw / (w² + λ)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.importance_mean import importance_mean
from sqlmetrics.metrics.classification._binary import IntoExpr, col
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.metrics.off_policy._params import SHRINKAGE
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="dr_os",
    family="off_policy",
    polars_form="rows",
    summary="Σ k·[q̂ₑ + (λw / (w² + λ))·(r − q̂ₐ)] / Σ k",
    template="off_policy/dr_os.sql",
    intermediates=("model_sums", "shrunk_sums"),
    needs=("label", "propensity", "target_propensity", "reward_model", "target_reward_model"),
    params=(SHRINKAGE,),
    label_domain="real",
    higher_is_better=True,
    range=None,
    row_plan=False,
    interval=importance_mean(_rows.corrected_sql(_rows.shrunk_sql("{{ shrinkage }}"))),
    reference="obp.ope.DoublyRobustWithShrinkage(lambda_=shrinkage)",
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
    shrinkage: float = 100.0,
) -> pl.Expr:
    """Σ k·[q̂ₑ + (λw / (w² + λ))·(r − q̂ₐ)] / Σ k over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    As obp 0.5.7's ``DoublyRobustWithShrinkage(lambda_=shrinkage)``
    (obp/ope/estimators.py: ``iw_hat = lambda_ * iw / (iw**2 + lambda_)``; Su et al.
    2020's optimistic shrinkage). λ is a finite number > 0 (obp's λ = 0, which is dm,
    gives nan on a row of w = 0; λ = ∞ is dr: use dm and dr).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> # (1.6 + 1·0.5 + 1·0.6 + (2/4.25)·(−0.1)) / 4
    >>> df.select(smp.dr_os(None, "click", **both, shrinkage=4)).item()
    0.663235294117647
    """
    k, iw = _rows.model_rows(label, weight, propensity, target_propensity, reward_model, target_reward_model)
    corrected = col(target_reward_model).cast(pl.Float64) + _rows.shrunk(shrinkage, iw) * _rows.residual(
        label, reward_model
    )
    return _rows.row_mean(corrected, k)
