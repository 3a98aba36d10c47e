"""The pieces the off-policy metrics share: each row's importance weight w = πₑ/π₀ and
residual r − q̂ₐ in SQL (base's sums, ``INTERMEDIATES``) and in polars (the metrics' row
expressions, which the polars engine evaluates over the used rows, and a state's sums).

A row's weight k is its ``weight=`` (1 without one), NULL for a row with a NULL reward
or a NULL in a column the metric reads: such a row counts for nothing
(``sm.evaluate`` reports it in ``n_excluded``).
"""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr, col

# w = πₑ/π₀ of a row of ``input`` (a propensity of 0 is refused by its rule; NULLIF keeps
# the warehouses that raise on a division by zero from raising before the rule does)
IMPORTANCE = "(target_propensity / CAST(NULLIF(propensity, 0) AS DOUBLE))"
# r − q̂ₐ: the reward less the reward model's value of the logged action
RESIDUAL = "(label - reward_model)"


def clipped_sql(cap: str) -> str:
    """min(w, λ) in SQL, λ the SQL ``cap`` (a literal, or ``{{ cap }}`` in a template)."""
    return f"LEAST({IMPORTANCE}, {cap})"


def switched_sql(cap: str) -> str:
    """1{w ≤ λ}·w in SQL."""
    return f"(CASE WHEN {IMPORTANCE} <= {cap} THEN {IMPORTANCE} ELSE 0 END)"


def shrunk_sql(shrinkage: str) -> str:
    """λw / (w² + λ) in SQL."""
    return f"({shrinkage} * {IMPORTANCE} / ({IMPORTANCE} * {IMPORTANCE} + {shrinkage}))"


def corrected_sql(weight: str) -> str:
    """q̂ₑ + ŵ·(r − q̂ₐ): a doubly robust estimator's row value, ŵ the SQL ``weight``."""
    return f"target_reward_model + {weight} * {RESIDUAL}"


def value_key(value: float) -> str:
    """A parameter value as the suffix of a column name: ``10`` for 10.0, ``0p5`` for 0.5,
    ``1em05`` for 1e-05 (``.`` written ``p``, ``-`` ``m``, as ``MetricCall.column`` does)."""
    return f"{value:.17g}".replace(".", "p").replace("-", "m").replace("+", "")


def sum_over(value: pl.Expr) -> pl.Expr:
    """Σ value over the rows, NULL over no row with a value (SQL's SUM)."""
    return pl.when(value.is_not_null().any()).then(value.sum())


def importance(propensity: IntoExpr, target_propensity: IntoExpr) -> pl.Expr:
    """w = πₑ/π₀, Float64."""
    return col(target_propensity).cast(pl.Float64) / col(propensity).cast(pl.Float64)


def residual(label: IntoExpr = "label", reward_model: IntoExpr = "reward_model") -> pl.Expr:
    """r − q̂ₐ, Float64."""
    return col(label).cast(pl.Float64) - col(reward_model).cast(pl.Float64)


def clipped(cap: float, iw: pl.Expr | None = None) -> pl.Expr:
    """min(w, λ): the weight clipped at the cap (obp's ``np.minimum(iw, lambda_)``)."""
    iw = importance("propensity", "target_propensity") if iw is None else iw
    return pl.min_horizontal(iw, pl.lit(cap))


def switched(cap: float, iw: pl.Expr | None = None) -> pl.Expr:
    """1{w ≤ λ}·w: the weight where it is at most the cap, else 0 (obp's switch-DR)."""
    iw = importance("propensity", "target_propensity") if iw is None else iw
    return pl.when(iw <= cap).then(iw).otherwise(0.0)


def shrunk(shrinkage: float, iw: pl.Expr | None = None) -> pl.Expr:
    """λw / (w² + λ): the weight shrunk towards 0 (obp's DoublyRobustWithShrinkage)."""
    iw = importance("propensity", "target_propensity") if iw is None else iw
    return shrinkage * iw / (iw * iw + shrinkage)


def row_weight(label: IntoExpr, weight: IntoExpr | None, *columns: IntoExpr) -> pl.Expr:
    """k: the row's weight (1 without a weight column), NULL for a row whose reward or
    any of ``columns`` is NULL (it counts for nothing)."""
    k = pl.lit(1.0) if weight is None else col(weight).cast(pl.Float64)
    present = pl.all_horizontal([col(c).is_not_null() for c in (label, *columns)])
    return pl.when(present).then(k)


def row_mean(value: pl.Expr, k: pl.Expr) -> pl.Expr:
    """Σ k·value / Σ k over the used rows; NULL when Σ k is 0 (no used row, or all of
    weight 0)."""
    total = k.sum()
    return pl.when(total != 0).then((k * value).sum() / total)


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator, NULL where the denominator is 0."""
    return pl.when(denominator != 0).then(numerator / denominator)


def model_rows(
    label: IntoExpr,
    weight: IntoExpr | None,
    propensity: IntoExpr,
    target_propensity: IntoExpr,
    reward_model: IntoExpr,
    target_reward_model: IntoExpr,
) -> tuple[pl.Expr, pl.Expr]:
    """``(k, w)`` of a doubly robust estimator's rows: the row weight, NULL for a row
    with a NULL in any of its columns, and the importance weight."""
    k = row_weight(label, weight, propensity, target_propensity, reward_model, target_reward_model)
    return k, importance(propensity, target_propensity)
