"""dr: the doubly robust estimator: the direct method plus the importance-weighted residual of the reward model."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.importance_mean import importance_mean
from sqlmetrics.metrics.classification._binary import IntoExpr, col
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="dr",
    family="off_policy",
    polars_form="rows",
    summary="Σ k·[q̂ₑ + w·(r − q̂ₐ)] / Σ k",
    template="off_policy/dr.sql",
    intermediates=("model_sums", "residual_sums"),
    needs=("label", "propensity", "target_propensity", "reward_model", "target_reward_model"),
    label_domain="real",
    higher_is_better=True,
    range=None,
    row_plan=False,
    interval=importance_mean(_rows.corrected_sql(_rows.IMPORTANCE)),
    reference="obp.ope.DoublyRobust",
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
    """Σ k·[q̂ₑ + w·(r − q̂ₐ)] / Σ k over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    As obp 0.5.7's ``DoublyRobust`` without clipping (obp/ope/estimators.py:
    ``np.average(q_hat, weights=action_dist) + iw * (reward - q_hat_factual)``, then
    ``.mean()``).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> # (1.6 + 1 + 0 + 1.2 − 0.05) / 4
    >>> df.select(smp.dr(None, "click", **both)).item()
    0.9375
    """
    k, iw = _rows.model_rows(label, weight, propensity, target_propensity, reward_model, target_reward_model)
    corrected = col(target_reward_model).cast(pl.Float64) + iw * _rows.residual(label, reward_model)
    return _rows.row_mean(corrected, k)
