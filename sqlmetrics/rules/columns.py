"""The input rules a composed call enforces before any number is trusted: the rules on a
column of the source (the rules on a second table are in ``rules/tables.py``).

Each rule is written once for both engines: a row condition in SQL and in polars over the
canonical columns of ``input``, true for a bad row. Where the rule's column is a grouping
key of the engine's ``base`` (score and label in SQL, the score in polars), the rule is
checked on base's groups; otherwise base counts the bad rows of each group
(``n_bad_<name>``) and, in SQL, keeps the smallest bad value as an example
(``bad_<name>``). The DuckDB engine raises from inside the query (``error()``), so the SQL
that ``to_sql`` prints refuses bad data by itself; the polars engine raises the same
message, reading its example from the rows only once a rule has failed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from sqlmetrics.errors import Counted, InvalidInputError
from sqlmetrics.spec import MetricCall, Role
from sqlmetrics.sqltext import templates

ERROR_PREFIX = "sqlmetrics: "


@dataclass(frozen=True)
class Check:
    """A rule over one column role: ``{role} column "x" must {rule}: n rows are not, e.g. v``
    (``1 row is not``)."""

    name: str
    role: str
    rule: str
    sql: str  # row condition over input's canonical columns, true for a bad row
    polars: Callable[[], pl.Expr]


LABEL_BINARY = Check(
    "label", "label", "be 0 or 1 (or boolean)", "label NOT IN (0, 1)", lambda: ~pl.col("label").is_in([0.0, 1.0])
)
LABEL_RELEVANCE = Check(
    "relevance",
    "label",
    "be a finite relevance >= 0",
    "(label < 0 OR isnan(label) OR isinf(label))",
    lambda: (pl.col("label") < 0) | pl.col("label").is_nan() | pl.col("label").is_infinite(),
)
LABEL_FINITE = Check(
    "target",
    "label",
    "be a finite number",
    "(isnan(label) OR isinf(label))",
    lambda: pl.col("label").is_nan() | pl.col("label").is_infinite(),
)
# The largest relevance a gain accepts. Every DCG, IDCG or CG sum (and the engines' sums of
# them over lists) adds at most one term per row, each at most gain(rel) (a discount is <= 1,
# a tie group's share of its positions too); with fewer than 2^63 rows and gain(rel) <=
# 2^960, a sum stays below 2^1023, finite in float64 (whose largest value is ~2^1024).
# Exponential gain 2^rel − 1 is <= 2^960 for rel <= 960; linear gain rel for rel <= 2^960.
MAX_EXPONENTIAL_RELEVANCE = 960
MAX_LINEAR_RELEVANCE = 2.0**960
LABEL_EXPONENTIAL_GAIN = Check(
    "exponential_gain",
    "label",
    f"be a relevance <= {MAX_EXPONENTIAL_RELEVANCE} under exponential gain (2^rel - 1 overflows beyond)",
    f"label > {MAX_EXPONENTIAL_RELEVANCE}",
    lambda: pl.col("label") > MAX_EXPONENTIAL_RELEVANCE,
)
LABEL_LINEAR_GAIN = Check(
    "linear_gain",
    "label",
    "be a relevance <= 2^960 under linear gain (sums of gains overflow beyond)",
    f"label > {MAX_LINEAR_RELEVANCE!r}",
    lambda: pl.col("label") > MAX_LINEAR_RELEVANCE,
)
SCORE_NOT_NAN = Check("nan", "score", "not be NaN", "isnan(score)", lambda: pl.col("score").is_nan())
SCORE_FINITE = Check("inf", "score", "be finite", "isinf(score)", lambda: pl.col("score").is_infinite())
SCORE_PROBABILITY = Check(
    "probability",
    "score",
    "be a probability in [0, 1]",
    "(score < 0 OR score > 1)",
    lambda: (pl.col("score") < 0) | (pl.col("score") > 1),
)
WEIGHT_VALID = Check(
    "weight",
    "weight",
    "be finite and >= 0",
    "(weight < 0 OR isnan(weight) OR isinf(weight))",
    lambda: (pl.col("weight") < 0) | pl.col("weight").is_nan() | pl.col("weight").is_infinite(),
)


def checks_for(calls: Sequence[MetricCall], weighted: bool) -> list[tuple[Check, str]]:
    """The rules the call's metrics need, each with the metrics that need it (for the message).
    A class label (multi-class metrics) has no rule: any value is a class."""

    def reads_score(call: MetricCall) -> bool:
        return "score" in call.spec.needs

    def needing(predicate: Callable[[MetricCall], bool]) -> str:
        return ", ".join(c.column for c in calls if predicate(c))

    rules = [
        (LABEL_BINARY, needing(lambda c: c.spec.label_domain == "binary")),
        (LABEL_RELEVANCE, needing(lambda c: c.spec.label_domain == "relevance")),
        (LABEL_EXPONENTIAL_GAIN, needing(lambda c: c.kwargs.get("gain") == "exponential")),
        (LABEL_LINEAR_GAIN, needing(lambda c: c.kwargs.get("gain") == "linear")),
        (LABEL_FINITE, needing(lambda c: c.spec.label_domain == "real")),
        (SCORE_NOT_NAN, "every metric" if calls and all(map(reads_score, calls)) else needing(reads_score)),
        (SCORE_FINITE, needing(lambda c: c.spec.score_domain in ("finite", "probability"))),
        (SCORE_PROBABILITY, needing(lambda c: c.spec.score_domain == "probability")),
        (WEIGHT_VALID, "weights" if weighted else ""),
    ]
    declared = {role.name: role for call in calls for role in call.spec.roles if role.rule is not None}
    rules += [(role_check(role), needing(lambda c, name=name: name in c.spec.needs)) for name, role in declared.items()]
    return [(check, metrics) for check, metrics in rules if metrics]


def role_check(role: Role) -> Check:
    """The input rule a family declares on its role's values (``spec.RoleRule``), as a ``Check``."""
    return Check(role.name, role.name, role.rule.rule, role.rule.sql, role.rule.polars)


def message_scope(metrics: str) -> str:
    """The metrics a rule's message names (`` (for auc, mae)``); none for a rule of every
    metric or of the weights."""
    return "" if metrics in ("every metric", "weights") else f" (for {metrics})"


ROWS_ARE_NOT = Counted("row is not", "rows are not")  # a rule's count of bad rows


def message_parts(check: Check, column: str, metrics: str) -> tuple[str, Counted, str]:
    """The fixed text before the row count, what follows the count (agreeing with it) and
    the text between that and the example."""
    scope = message_scope(metrics)
    return f"{ERROR_PREFIX}{check.role} column {column!r} must {check.rule}{scope}: ", ROWS_ARE_NOT, ", e.g. "


def counted_sql(counted: Counted, count: str) -> str:
    """``Counted.of`` in SQL: the text of the integer ``count`` and the words that agree
    with it (``' row is not'`` after 1, ``' rows are not'`` after any other)."""
    one, many = templates.literal(" " + counted.one), templates.literal(" " + counted.many)
    words = f"CASE WHEN {count} = 1 THEN {one} ELSE {many} END"
    return f"CAST({count} AS VARCHAR) || {words}"


def counted_polars(counted: Counted, count: pl.Expr) -> pl.Expr:
    """``Counted.of`` in polars, for each value of the integer ``count``."""
    return pl.format("{} {}", count, pl.when(count == 1).then(pl.lit(counted.one)).otherwise(pl.lit(counted.many)))


def row_counters_polars(checks: list[tuple[Check, str]], keys: Sequence[str]) -> list[pl.Expr]:
    """base's per-group count of bad rows, for the rules whose column is not a key."""
    return [
        check.polars().fill_null(False).sum().cast(pl.Int64).alias(f"n_bad_{check.name}")
        for check, _ in checks
        if check.role not in keys
    ]


def raise_failed(
    base: pl.DataFrame,
    rows: pl.LazyFrame,
    checks: list[tuple[Check, str]],
    keys: Sequence[str],
    columns: dict[str, str],
) -> None:
    """Raise InvalidInputError for the first rule the polars ``base`` frame breaks."""
    for check, metrics in checks:
        bad = check.polars().fill_null(False)
        if check.role in keys:
            count = base.filter(bad)["n_all"].sum()
        else:
            count = base[f"n_bad_{check.name}"].sum()
        if count:
            _raise(check, metrics, count, rows, columns)


def raise_failed_rows(rows: pl.LazyFrame, checks: list[tuple[Check, str]], columns: dict[str, str]) -> None:
    """Raise InvalidInputError for the first rule ``rows`` break, counted over the rows
    themselves (a frame function, which has no ``base``)."""
    counts = rows.select(check.polars().fill_null(False).sum().cast(pl.Int64).alias(check.name) for check, _ in checks)
    counts = counts.collect()
    for (check, metrics), count in zip(checks, counts.row(0)):
        if count:
            _raise(check, metrics, count, rows, columns)


def _raise(check: Check, metrics: str, count: int, rows: pl.LazyFrame, columns: dict[str, str]) -> None:
    example = rows.filter(check.polars().fill_null(False)).select(pl.col(check.role).min()).collect().item()
    before, counted, between = message_parts(check, columns[check.role], metrics)
    raise InvalidInputError(f"{before}{counted.of(count)}{between}{number_text(example)}".removeprefix(ERROR_PREFIX))


# Below this magnitude an integral double is shown as an integer (and fits a BIGINT).
INTEGRAL_LIMIT = 1e15


def number_text(value: object) -> str:
    """A bad value as the message shows it: an integral number without a fraction (a
    label of 2 reads ``2``, not ``2.0``), any other as Python writes it.

    >>> number_text(2.0), number_text(-0.5), number_text(float("nan")), number_text(1e300)
    ('2', '-0.5', 'nan', '1e+300')
    """
    if isinstance(value, float) and value.is_integer() and abs(value) < INTEGRAL_LIMIT:
        return str(int(value))
    return str(value)


def number_text_sql(value: str) -> str:
    """``number_text`` in SQL: the text of the double ``value``, an integral one without a
    fraction, any other as the engine writes a double."""
    integral = f"{value} = ROUND({value}) AND ABS({value}) < {INTEGRAL_LIMIT:.0e}"
    return f"CASE WHEN {integral} THEN CAST(CAST({value} AS BIGINT) AS VARCHAR) ELSE CAST({value} AS VARCHAR) END"


def number_text_polars(column: str) -> pl.Expr:
    """``number_text_sql`` in polars: the text of the double ``column``, an integral one
    without a fraction."""
    value = pl.col(column)
    integral = (value == value.round()) & (value.abs() < INTEGRAL_LIMIT)
    return pl.when(integral).then(value.cast(pl.Int64).cast(pl.String)).otherwise(value.cast(pl.String))


# A slice's summed weight must stay below this: every weighted metric divides by it (or
# by a part of it), and a sum beyond the float range would be inf.
MAX_WEIGHT_TOTAL = 1e308


def weight_total_message(column: str) -> tuple[str, str]:
    """The refusal of weights whose sum over a slice overflows the float range: the text
    before and after the slice's summed weight."""
    return (
        f"column {column!r}: the weights of a slice sum to more than {MAX_WEIGHT_TOTAL:g} (",
        "), beyond the float range; rescale them (e.g. divide the column by its largest value): "
        "every metric but the weighted counts is unchanged by a common factor",
    )


def raise_weight_total(base: pl.DataFrame, slices: Sequence[str], column: str) -> None:
    """Raise when a slice's summed weight (``base``'s ``w``) reaches ``MAX_WEIGHT_TOTAL``."""
    total = base.group_by(list(slices)).agg(pl.col("w").sum())["w"].max() if base.height else None
    if total is not None and total >= MAX_WEIGHT_TOTAL:
        before, after = weight_total_message(column)
        raise InvalidInputError(f"{before}{total}{after}")
