"""The input rules a composed call enforces before any number is trusted.

Each rule is written once, for both engines: a SQL condition and a polars condition over
the ``base`` aggregation (rows grouped by slice, score and label), true for bad rows.
The DuckDB engine raises from inside the query (``error()``), so the SQL that
``to_sql`` prints refuses bad data by itself; the polars engine raises the same message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from sqlmetrics.errors import InvalidInputError
from sqlmetrics.spec import MetricCall

ERROR_PREFIX = "sqlmetrics: "


@dataclass(frozen=True)
class Check:
    """A rule over one column role: ``{role} column "x" must {rule}: n rows are not, e.g. v``."""

    role: str
    rule: str
    sql: str  # condition over base's columns, true for groups of bad rows
    polars: Callable[[], pl.Expr]
    value: str  # the base column an example is taken from
    count: str = "n"  # the base column counting the bad rows of a group


LABEL_BINARY = Check(
    "label", "be 0 or 1 (or boolean)", "label NOT IN (0, 1)", lambda: ~pl.col("label").is_in([0.0, 1.0]), "label"
)
SCORE_NOT_NAN = Check("score", "not be NaN", "isnan(score)", lambda: pl.col("score").is_nan(), "score")
SCORE_FINITE = Check("score", "be finite", "isinf(score)", lambda: pl.col("score").is_infinite(), "score")
SCORE_PROBABILITY = Check(
    "score",
    "be a probability in [0, 1]",
    "(score < 0 OR score > 1)",
    lambda: (pl.col("score") < 0) | (pl.col("score") > 1),
    "score",
)
WEIGHT_VALID = Check(
    "weight", "be finite and >= 0", "n_bad_weight > 0", lambda: pl.col("n_bad_weight") > 0, "bad_weight", "n_bad_weight"
)

# Per-row weight rule, aggregated into base as n_bad_weight / bad_weight.
BAD_WEIGHT_SQL = "(weight < 0 OR isnan(weight) OR isinf(weight))"


def bad_weight_polars() -> pl.Expr:
    weight = pl.col("weight")
    return (weight < 0) | weight.is_nan() | weight.is_infinite()


def checks_for(calls: Sequence[MetricCall], weighted: bool) -> list[tuple[Check, str]]:
    """The rules the call's metrics need, each with the metrics that need it (for the message)."""

    def needing(predicate: Callable[[MetricCall], bool]) -> str:
        return ", ".join(c.label for c in calls if predicate(c))

    rules = [
        (LABEL_BINARY, needing(lambda c: c.spec.label_domain == "binary")),
        (SCORE_NOT_NAN, "every metric"),
        (SCORE_FINITE, needing(lambda c: c.spec.score_domain in ("finite", "probability"))),
        (SCORE_PROBABILITY, needing(lambda c: c.spec.score_domain == "probability")),
        (WEIGHT_VALID, "weights" if weighted else ""),
    ]
    return [(check, metrics) for check, metrics in rules if metrics]


def message_parts(check: Check, column: str, metrics: str) -> tuple[str, str]:
    """The fixed text before the row count and between it and the example."""
    scope = "" if metrics in ("every metric", "weights") else f" (for {metrics})"
    return f"{ERROR_PREFIX}{check.role} column {column!r} must {check.rule}{scope}: ", " rows are not, e.g. "


def raise_failed(base: pl.DataFrame, checks: list[tuple[Check, str]], columns: dict[str, str]) -> None:
    """Raise InvalidInputError for the first rule the polars ``base`` frame breaks."""
    for check, metrics in checks:
        bad = base.filter(check.polars().fill_null(False))
        if bad.height:
            count = int(bad[check.count].sum())
            example = bad[check.value].min()
            before, between = message_parts(check, columns[check.role], metrics)
            raise InvalidInputError(f"{before}{count}{between}{example}".removeprefix(ERROR_PREFIX))
