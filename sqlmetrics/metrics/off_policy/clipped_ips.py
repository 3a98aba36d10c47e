"""clipped_ips: ips with each importance weight clipped at the cap λ: less variance, some bias."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.importance_mean import importance_mean
from sqlmetrics.metrics.classification._binary import IntoExpr, col
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.metrics.off_policy._params import CAP
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="clipped_ips",
    family="off_policy",
    polars_form="rows",
    summary="Σ k·min(w, λ)·r / Σ k",
    template="off_policy/clipped_ips.sql",
    intermediates=("clipped_sums",),
    needs=("label", "propensity", "target_propensity"),
    params=(CAP,),
    label_domain="real",
    higher_is_better=True,
    range=None,
    row_plan=False,
    interval=importance_mean(_rows.clipped_sql("{{ cap }}") + " * label"),
    reference="obp.ope.InverseProbabilityWeighting(lambda_=cap)",
)


def expr(
    score: IntoExpr | None,
    label: IntoExpr,
    weight: IntoExpr | None = None,
    *,
    propensity: IntoExpr,
    target_propensity: IntoExpr,
    cap: float = 10.0,
) -> pl.Expr:
    """Σ k·min(w, λ)·r / Σ k over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    As obp 0.5.7's ``InverseProbabilityWeighting(lambda_=cap)`` (obp/ope/estimators.py:
    ``np.minimum(iw, self.lambda_)``). obp's default cap is infinity (plain ips): here
    the cap is a finite number > 0, default 10.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> # (1.5 + 0 + 1.5 + 0) / 4
    >>> df.select(smp.clipped_ips(None, "click", **logged, cap=1.5)).item()
    0.75
    """
    k, iw = (
        _rows.row_weight(label, weight, propensity, target_propensity),
        _rows.importance(propensity, target_propensity),
    )
    return _rows.row_mean(_rows.clipped(cap, iw) * col(label).cast(pl.Float64), k)
