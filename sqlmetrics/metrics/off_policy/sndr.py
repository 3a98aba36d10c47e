"""sndr: the self-normalized doubly robust estimator: dr with the residual term divided by
the mean importance weight.
"""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.importance_ratio import importance_ratio
from sqlmetrics.metrics.classification._binary import IntoExpr, col
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="sndr",
    family="off_policy",
    polars_form="rows",
    summary="Σ k·q̂ₑ / Σ k + Σ k·w·(r − q̂ₐ) / Σ k·w",
    template="off_policy/sndr.sql",
    intermediates=("model_sums", "residual_sums", "importance_sums"),
    needs=("label", "propensity", "target_propensity", "reward_model", "target_reward_model"),
    label_domain="real",
    higher_is_better=True,
    range=None,
    row_plan=False,
    interval=importance_ratio("target_reward_model", f"{_rows.IMPORTANCE} * {_rows.RESIDUAL}", _rows.IMPORTANCE),
    reference="obp.ope.SelfNormalizedDoublyRobust",
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
) -> pl.Expr:
    """Σ k·q̂ₑ / Σ k + Σ k·w·(r − q̂ₐ) / Σ k·w over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    As obp 0.5.7's ``SelfNormalizedDoublyRobust`` (obp/ope/estimators.py: ``q̂ₑ + iw *
    (reward - q_hat_factual) / iw.mean()``, then ``.mean()``), which gives nan where
    every w is 0: NULL here.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> # 1.6 / 4 + 2.15 / 4.5
    >>> df.select(smp.sndr(None, "click", **both)).item()
    0.8777777777777778
    """
    k, iw = _rows.model_rows(label, weight, propensity, target_propensity, reward_model, target_reward_model)
    model = _rows.row_mean(col(target_reward_model).cast(pl.Float64), k)
    return model + _rows.ratio((k * iw * _rows.residual(label, reward_model)).sum(), (k * iw).sum())
