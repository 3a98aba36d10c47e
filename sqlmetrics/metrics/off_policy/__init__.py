"""Off-policy evaluation: what a target policy would have earned on the rows a logging
policy served, from the logged propensities (obp 0.5.7's ``obp.ope`` estimators).

Each row is one logged decision. The roles this family adds (``FAMILY``):
``propensity``, π₀(a|x), the logging policy's probability of the logged action, in
(0, 1]; ``target_propensity``, πₑ(a|x), the evaluated policy's probability of the same
action, in [0, 1]; ``reward_model``, q̂(x, a) of the logged action, and
``target_reward_model``, Σₐ πₑ(a|x)·q̂(x, a), for the model-based estimators (any finite
number). ``label=`` is the reward, ``weight=`` a frequency weight as everywhere: with
w = πₑ/π₀ the importance weight and k the row weight, ips is Σ k·w·r / Σ k.

Every estimator is a function of per-slice sums taken once in ``base`` (the steps in
``INTERMEDIATES``, each adding its sums to base and summing them per slice), so the
estimators compose into one statement, merge exactly in a state and a roll-up, and
render in every dialect. The sums that depend on a parameter (the cap of clipped_ips
and switch_dr, dr_os's shrinkage) are declared per value in use (``clipped_sums`` per
cap, ...): one sum in base for each value a call asks for. The polars engine computes
each metric's row expression over the used rows instead (``Folded``). Its ``FAMILY``'s
hooks refuse a result that overflowed the float range (``overflow.py``).
"""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.off_policy._rows import (
    IMPORTANCE,
    RESIDUAL,
    clipped,
    clipped_sql,
    importance,
    residual,
    shrunk,
    shrunk_sql,
    sum_over,
    switched,
    switched_sql,
    value_key,
)
from sqlmetrics.metrics.off_policy.overflow import check_no_overflow
from sqlmetrics.spec import Role, RoleRule
from sqlmetrics.sqltext.templates import literal
from sqlmetrics.steps import Family, Folded, Hooks, Intermediate


def _outside(role: str, low: str, high: str) -> RoleRule:
    """A probability's rule: NaN, or outside [low, high] with ``low`` ``>`` or ``>=``."""
    open_low = low.startswith("(")
    bound = low.strip("([")
    sql = f"({role} {'<=' if open_low else '<'} {bound} OR {role} > {high.strip(')]')} OR isnan({role}))"

    def polars() -> pl.Expr:
        value = pl.col(role)
        below = value <= float(bound) if open_low else value < float(bound)
        return below | (value > float(high.strip(")]"))) | value.is_nan()

    return RoleRule(f"be a probability in {low}, {high}", sql, polars)


def _finite(role: str) -> RoleRule:
    return RoleRule(
        "be a finite number",
        f"(isnan({role}) OR isinf({role}))",
        lambda: pl.col(role).is_nan() | pl.col(role).is_infinite(),
    )


FAMILY = Family(
    "off_policy",
    roles=(
        Role(
            "propensity",
            "the logging policy's probability of the logged action, π₀(a|x), in (0, 1]",
            rule=_outside("propensity", "(0", "1]"),
            valid_values=(0.1, 0.25, 0.5, 1.0),
        ),
        Role(
            "target_propensity",
            "the evaluated policy's probability of the logged action, πₑ(a|x), in [0, 1]",
            rule=_outside("target_propensity", "[0", "1]"),
            valid_values=(0.0, 0.2, 0.5, 1.0),
        ),
        Role(
            "reward_model",
            "the reward model's q̂(x, a) of the logged action (a finite number), for dm, dr and their kin",
            rule=_finite("reward_model"),
            valid_values=(0.0, 0.3, 1.0),
        ),
        Role(
            "target_reward_model",
            "the reward model's value of the evaluated policy, Σₐ πₑ(a|x)·q̂(x, a) (a finite number)",
            rule=_finite("target_reward_model"),
            valid_values=(0.0, 0.5, 0.8),
        ),
    ),
    hooks=Hooks(check_result=check_no_overflow),
)


def _importance_polars() -> list[pl.Expr]:
    w, iw = pl.col("w"), importance("propensity", "target_propensity")
    return [
        sum_over(w * iw * pl.col("label")).alias("ope_reward"),
        sum_over(w * iw).alias("ope_weight"),
        sum_over(w * iw * iw).alias("ope_weight_squares"),
        iw.filter(w > 0).max().alias("ope_max_weight"),
    ]


def _clipped_aggregates(cap: float) -> tuple[str, ...]:
    return (f"SUM(w * {clipped_sql(literal(cap))} * label) AS ope_clipped_{value_key(cap)}",)


def _switch_aggregates(cap: float) -> tuple[str, ...]:
    return (f"SUM(w * {switched_sql(literal(cap))} * {RESIDUAL}) AS ope_switch_{value_key(cap)}",)


def _shrunk_aggregates(shrinkage: float) -> tuple[str, ...]:
    return (f"SUM(w * {shrunk_sql(literal(shrinkage))} * {RESIDUAL}) AS ope_shrunk_{value_key(shrinkage)}",)


def _key(name: str):
    """``derived`` of a step rendered per value of parameter ``name``: ``{{ key }}``, the
    value as the suffix of base's sum of it."""
    return lambda **given: {"key": value_key(given[name])}


_FOLDED = Folded("rows", "each off-policy metric's row expression takes its own sums over the used rows")

INTERMEDIATES = {
    "importance_sums": Intermediate(
        "off_policy/importance_sums.sql",
        base_aggregates=(
            f"SUM(w * {IMPORTANCE} * label) AS ope_reward",
            f"SUM(w * {IMPORTANCE}) AS ope_weight",
            f"SUM(w * {IMPORTANCE} * {IMPORTANCE}) AS ope_weight_squares",
            f"MAX(CASE WHEN w > 0 THEN {IMPORTANCE} END) AS ope_max_weight",
        ),
        polars_sums=_importance_polars,
        folded=_FOLDED,
    ),
    "model_sums": Intermediate(
        "off_policy/model_sums.sql",
        base_aggregates=("SUM(w * target_reward_model) AS ope_model_reward",),
        polars_sums=lambda: [sum_over(pl.col("w") * pl.col("target_reward_model")).alias("ope_model_reward")],
        folded=_FOLDED,
    ),
    "residual_sums": Intermediate(
        "off_policy/residual_sums.sql",
        base_aggregates=(f"SUM(w * {IMPORTANCE} * {RESIDUAL}) AS ope_residual",),
        polars_sums=lambda: [
            sum_over(pl.col("w") * importance("propensity", "target_propensity") * residual()).alias("ope_residual")
        ],
        folded=_FOLDED,
    ),
    "clipped_sums": Intermediate(
        "off_policy/clipped_sums.sql",
        each=("cap",),
        derived=_key("cap"),
        base_aggregates=_clipped_aggregates,
        polars_sums=lambda cap: [
            sum_over(pl.col("w") * clipped(cap) * pl.col("label")).alias(f"ope_clipped_{value_key(cap)}")
        ],
        folded=_FOLDED,
    ),
    "switch_sums": Intermediate(
        "off_policy/switch_sums.sql",
        each=("cap",),
        derived=_key("cap"),
        base_aggregates=_switch_aggregates,
        polars_sums=lambda cap: [
            sum_over(pl.col("w") * switched(cap) * residual()).alias(f"ope_switch_{value_key(cap)}")
        ],
        folded=_FOLDED,
    ),
    "shrunk_sums": Intermediate(
        "off_policy/shrunk_sums.sql",
        each=("shrinkage",),
        derived=_key("shrinkage"),
        base_aggregates=_shrunk_aggregates,
        polars_sums=lambda shrinkage: [
            sum_over(pl.col("w") * shrunk(shrinkage) * residual()).alias(f"ope_shrunk_{value_key(shrinkage)}")
        ],
        folded=_FOLDED,
    ),
}

__all__ = ["FAMILY", "INTERMEDIATES"]
