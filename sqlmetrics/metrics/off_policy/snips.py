"""snips: self-normalized inverse propensity scoring: ips divided by the mean importance weight."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.importance_ratio import importance_ratio
from sqlmetrics.metrics.classification._binary import IntoExpr, col
from sqlmetrics.metrics.off_policy import _rows
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="snips",
    family="off_policy",
    polars_form="rows",
    summary="Σ k·w·r / Σ k·w",
    template="off_policy/snips.sql",
    intermediates=("importance_sums",),
    needs=("label", "propensity", "target_propensity"),
    label_domain="real",
    higher_is_better=True,
    range=None,
    row_plan=False,
    interval=importance_ratio("0", f"{_rows.IMPORTANCE} * label", _rows.IMPORTANCE),
    reference="obp.ope.SelfNormalizedInverseProbabilityWeighting",
)


def expr(
    score: IntoExpr | None,
    label: IntoExpr,
    weight: IntoExpr | None = None,
    *,
    propensity: IntoExpr,
    target_propensity: IntoExpr,
) -> pl.Expr:
    """Σ k·w·r / Σ k·w over the used rows, w = πₑ/π₀ the importance weight, k the row weight,
    r the reward (the label); ``score`` is not read.

    As obp 0.5.7's ``SelfNormalizedInverseProbabilityWeighting`` (obp/ope/estimators.py:
    ``reward * iw / iw.mean()``, then ``.mean()``) and vw-estimators' ``snips``, which
    return nan and None where every w is 0: NULL here.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
    ...                    "q": [0.5, 0.2, 0.4, 0.1], "q_e": [0.6, 0.3, 0.5, 0.2]})
    >>> logged = dict(propensity="p0", target_propensity="pe")  # w = 2, 0, 2, 0.5
    >>> both = dict(logged, reward_model="q", target_reward_model="q_e")
    >>> # 4 / (2 + 0 + 2 + 0.5)
    >>> df.select(smp.snips(None, "click", **logged)).item()
    0.8888888888888888
    """
    k, iw = (
        _rows.row_weight(label, weight, propensity, target_propensity),
        _rows.importance(propensity, target_propensity),
    )
    return _rows.ratio((k * iw * col(label).cast(pl.Float64)).sum(), (k * iw).sum())
