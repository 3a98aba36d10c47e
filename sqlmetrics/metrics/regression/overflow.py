"""Regression's check of a result (its ``Hooks.check_result``): a metric of finite
inputs that came out infinite or NaN overflowed the float range, and is refused rather
than reported."""

from __future__ import annotations

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.errors import InvalidInputError


def check_no_overflow(binding: Binding, result: pl.DataFrame) -> None:
    """Raise when a regression metric came out infinite or NaN: its inputs are finite (the
    input rules), so a sum, square or difference of them overflowed the float range
    (values near ±1.8e308), or, for r2 (whose sums are scaled), the value itself is below
    −1.8e308. Never report such a number: the caller rescales the label and score."""
    regression = [call for call in binding.calls if call.spec.family == "regression"]
    values = [pl.col(call.column).cast(pl.Float64) for call in regression]
    not_finite = (
        result.select((value.is_infinite() | value.is_nan()).any() for value in values).row(0) if regression else ()
    )
    calls = [call for call, bad in zip(regression, not_finite) if bad]
    overflowed = [call.column for call in calls if call.spec.name != "r2"]
    if overflowed:
        raise InvalidInputError(
            f"{', '.join(overflowed)}: an intermediate sum overflowed the float range (|value| > 1.8e308) although "
            "label and score are finite; rescale them (e.g. divide both by 1e300)"
        )
    if calls:  # r2 scales its sums, so only its value itself can leave the float range
        raise InvalidInputError(
            f"{calls[0].column}: R² = 1 − Σ w·e² / Σ w·(y − ȳ)² is below −1.8e308 and cannot be represented: "
            "the squared errors exceed the target's spread by more than the float range (e.g. targets near 1e-320 "
            "against predictions near 1); check that label and score are in the same units"
        )
