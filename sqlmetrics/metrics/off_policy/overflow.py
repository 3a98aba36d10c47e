"""The off-policy family's check of a result (its ``Hooks.check_result``): an estimator of
finite inputs that came out infinite or NaN overflowed the float range, and is refused
rather than reported. A propensity is any number in (0, 1], so an importance weight
πₑ/π₀ can pass 1e154 (its square overflows: ``ess``, an interval's spread) or 1.8e308
(the weight itself)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.errors import InvalidInputError


def check_no_overflow(binding: Binding, result: pl.DataFrame) -> None:
    """Raise when an off-policy column (a value or an interval's bound) is infinite or
    NaN: the inputs are finite (the input rules), so an importance weight, its square or
    a sum of them overflowed the float range. Never report such a number."""
    columns = [
        column
        for call in binding.calls
        if call.spec.family == "off_policy"
        for column in (call.column, f"{call.column}_lo", f"{call.column}_hi")
        if column in result.columns
    ]
    if not columns:
        return
    values = [pl.col(column).cast(pl.Float64) for column in columns]
    not_finite = result.select((value.is_infinite() | value.is_nan()).any() for value in values).row(0)
    overflowed = [column for column, bad in zip(columns, not_finite) if bad]
    if overflowed:
        raise InvalidInputError(
            f"{', '.join(overflowed)}: an importance weight πₑ/π₀, its square or a sum of them overflowed the float "
            "range (|value| > 1.8e308): the propensities are too small (check that the propensity column holds "
            "probabilities, not log-probabilities or scores)"
        )
