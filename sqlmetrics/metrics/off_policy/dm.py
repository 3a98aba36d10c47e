"""dm: the direct method: the reward model's value of the target policy, averaged over the logged rows."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.importance_mean import importance_mean
from sqlmetrics.metrics.classification._binary import IntoExpr, col
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="dm",
    family="off_policy",
    polars_form="rows",
    summary="Σ k·q̂ₑ / Σ k",
    template="off_policy/dm.sql",
    intermediates=("model_sums",),
    needs=("label", "target_reward_model"),
    label_domain="real",
    higher_is_better=True,
    range=None,
    row_plan=False,
    interval=importance_mean("target_reward_model"),
    reference="obp.ope.DirectMethod",
)


def expr(
    score: IntoExpr | None, label: IntoExpr, weight: IntoExpr | None = None, *, target_reward_model: IntoExpr
) -> pl.Expr:
    """Σ k·q̂ₑ / Σ k over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    As obp 0.5.7's ``DirectMethod`` (obp/ope/estimators.py: ``np.average(q_hat,
    weights=action_dist, axis=1)``, then ``.mean()``): that per-row average is the role
    ``target_reward_model``, q̂ₑ = Σₐ πₑ(a|x)·q̂(x, a). The reward (``label=``) is not
    read, but a row without one is left out, as for every off-policy metric.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> # (0.6 + 0.3 + 0.5 + 0.2) / 4
    >>> df.select(smp.dm(None, "click", target_reward_model="q_e")).item()
    0.39999999999999997
    """
    k = _rows.row_weight(label, weight, target_reward_model)
    return _rows.row_mean(col(target_reward_model).cast(pl.Float64), k)
