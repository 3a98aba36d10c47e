"""Rounded states (``sm.state(..., score_digits=d)``): the one rounding of scores both
engines apply, the spread of the scores each rounded score stands for, and which metrics
a rounded state serves.

A score s is rounded half up to d decimals, q = FLOOR(s·10^d + 0.5) / 10^d, each step
one IEEE double operation, so that DuckDB (``rounded_score_sql``) and the polars engine
(``round_scores``) give the same double: DuckDB's ``ROUND`` rounds ties away from zero
and polars' ``round`` to even, and polars divides a column by a constant through its
reciprocal (1005 / 1000 = 1.0050000000000001), so the polars side divides with numpy,
which divides each value. The steps are monotone, so rounding keeps the order of scores
(a score of d decimals, the double nearest k/10^d, is left as it is).

With the scores rounded the state keeps, per rounded score and label, the smallest and
largest score it stands for (``SCORE_SPREAD``), which roll-ups read to bound the error
rounding caused (``compose/rounding_bound.py``).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.compose.intermediates import reads
from sqlmetrics.errors import InvalidParameterError

DIGITS = (1, 15)
SCORE_SPREAD = ("score_min", "score_max")


def rounded_score_sql(score: str, digits: int) -> str:
    """SQL rounding the DOUBLE ``score`` half up to ``digits`` decimals."""
    scale = f"CAST({10.0**digits!r} AS DOUBLE)"
    return f"FLOOR({score} * {scale} + CAST(0.5 AS DOUBLE)) / {scale}"


def round_scores(scores: pl.Series, digits: int) -> pl.Series:
    """``scores`` (Float64) rounded as ``rounded_score_sql`` rounds them, NULL kept."""
    scale = 10.0**digits
    values = scores.cast(pl.Float64).to_numpy()  # a NULL becomes NaN, rounded to NaN
    rounded = pl.Series(scores.name, np.floor(values * scale + 0.5) / scale, dtype=pl.Float64)
    return pl.select(pl.when(scores.is_null()).then(None).otherwise(rounded)).to_series().alias(scores.name)


def spread_aggregates() -> list[str]:
    """base's aggregates of the scores a row stands for: the smallest and largest score
    of its used rows (merged by MIN and MAX)."""
    return [
        f"{function}(CASE WHEN w IS NOT NULL THEN score END) AS {name}"
        for function, name in zip(("MIN", "MAX"), SCORE_SPREAD)
    ]


def spread_sums_polars() -> list[pl.Expr]:
    """``spread_aggregates`` in polars."""
    used = pl.col("score").filter(pl.col("w").is_not_null())
    return [used.min().alias(SCORE_SPREAD[0]), used.max().alias(SCORE_SPREAD[1])]


def reads_scores(binding: Binding) -> list[str]:
    """The calls of ``binding`` that read the score histogram (what a state rounds)."""
    return [call.column for call in binding.calls if reads("score_hist", call.spec.intermediates)]


def check_score_digits(digits: object, binding: Binding) -> None:
    """Refuse ``score_digits`` unless an integer from 1 to 15 for a call whose metrics
    read the score histogram, each with a bound derived (``Metric.score_rounding``)."""
    if digits is None:
        return
    if isinstance(digits, bool) or not isinstance(digits, int) or not DIGITS[0] <= digits <= DIGITS[1]:
        raise InvalidParameterError(f"score_digits must be an integer from 1 to 15 (or None: exact), got {digits!r}")
    if not reads_scores(binding):
        raise InvalidParameterError(
            f"score_digits={digits}: no metric of {', '.join(c.column for c in binding.calls)} keeps the score "
            "histogram that score_digits rounds (their states are sums or per-query values, exact): leave it out"
        )
    unbounded = [
        call.column
        for call in binding.calls
        if reads("score_hist", call.spec.intermediates) and not call.spec.score_rounding
    ]
    if unbounded:
        raise InvalidParameterError(
            f"{', '.join(unbounded)} cannot be kept with score_digits: no certified bound on the error rounding "
            "causes is declared for it (Metric.score_rounding); keep it in a state without "
            "score_digits"
        )
