"""The input rules a composed call enforces before any number is trusted.

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

from sqlmetrics import templates
from sqlmetrics.binding import Binding
from sqlmetrics.errors import InvalidInputError
from sqlmetrics.spec import MetricCall

ERROR_PREFIX = "sqlmetrics: "


@dataclass(frozen=True)
class Check:
    """A rule over one column role: ``{role} column "x" must {rule}: n rows are not, e.g. v``."""

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
        return ", ".join(c.label for c in calls if predicate(c))

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
    return [(check, metrics) for check, metrics in rules if metrics]


def message_parts(check: Check, column: str, metrics: str) -> tuple[str, str]:
    """The fixed text before the row count and between it and the example."""
    scope = "" if metrics in ("every metric", "weights") else f" (for {metrics})"
    return f"{ERROR_PREFIX}{check.role} column {column!r} must {check.rule}{scope}: ", " rows are not, e.g. "


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
    before, between = message_parts(check, columns[check.role], metrics)
    raise InvalidInputError(f"{before}{count}{between}{example}".removeprefix(ERROR_PREFIX))


@dataclass(frozen=True)
class RuleTables:
    """The polars frames a table rule reads: ``rows``, the source's rows under canonical
    names (``w`` NULL for an excluded row); ``second``, the judgments or the long class
    scores under canonical names; ``base``, collected; ``class_hist``, the class score
    histogram of the used rows."""

    rows: pl.LazyFrame
    second: pl.LazyFrame | None = None
    base: pl.DataFrame | None = None
    class_hist: pl.DataFrame | None = None


@dataclass(frozen=True)
class TableRule:
    """A rule on a second table (judgments, long class scores) and the rows it serves,
    over whole rows or pairs of keys, in its three forms, written once here:

    * the message ``{before}{count}{between}{example}``;
    * ``sql``: (count, example, FROM clause), the SQL counting the rows (or pairs) that
      break it and giving the smallest as the example (``compose/checks.py`` raises);
    * ``polars(tables)``: the same as a one-row LazyFrame of ``n`` (the count) and ``e``
      (the example), over the ``RuleTables`` (``raise_failed_tables`` raises).
    """

    name: str
    before: str
    between: str
    sql: tuple[str, str, str]
    polars: Callable[[RuleTables], pl.LazyFrame]


def gain_checks(calls: Sequence[MetricCall]) -> list[tuple[Check, str]]:
    """The relevance bounds of the calls' gains, with the metrics that need each: they hold
    for the judgments too, whose items feed the ideal DCG even when the run misses them."""
    return [(check, metrics) for check, metrics in checks_for(calls, False) if check.name.endswith("_gain")]


def _key_pair(first: str, second: str) -> tuple[str, pl.Expr]:
    """Two keys shown as ``first, second`` (a repeated pair's example), in SQL and polars."""
    sql = f"CAST({first} AS VARCHAR) || ', ' || CAST({second} AS VARCHAR)"
    return sql, pl.format("{}, {}", pl.col(first).cast(pl.String), pl.col(second).cast(pl.String))


def _null_pair(first: str, second: str) -> tuple[str, pl.Expr]:
    """Two keys shown as ``first, second`` with a NULL written ``NULL``, in SQL and polars."""
    sql = f"COALESCE(CAST({first} AS VARCHAR), 'NULL') || ', ' || COALESCE(CAST({second} AS VARCHAR), 'NULL')"
    text = (pl.col(first).cast(pl.String).fill_null("NULL"), pl.col(second).cast(pl.String).fill_null("NULL"))
    return sql, pl.format("{}, {}", *text)


def _bad_relevance(check: Check, name: str, before: str) -> TableRule:
    """A relevance rule (``check``) over the judgments: the rows breaking it, the smallest
    bad relevance as the example."""
    return TableRule(
        name,
        before,
        " rows are not, e.g. ",
        (f"SUM(CASE WHEN {check.sql} THEN 1 ELSE 0 END)", f"MIN(CASE WHEN {check.sql} THEN label END)", "judgments"),
        lambda t: t.second.filter(check.polars().fill_null(False)).select(n=pl.len(), e=pl.col("label").min()),
    )


def run_rules(binding: Binding) -> list[TableRule]:
    """The rules of a call with judgments, in the order they are checked: every judgment
    has a query, item and relevance; relevance is finite and >= 0 and within the bounds
    of the calls' gains (``gain_checks``); each (query, item) is judged at most once and
    ranked at most once per list."""
    relevance_column = binding.judgment_roles["label"]
    by = ", ".join(binding.slices)
    null = "query IS NULL OR item IS NULL OR label IS NULL"
    null_sql, null_polars = _null_pair("query", "item")
    pair_sql, pair_polars = _key_pair("query", "item")
    any_null = pl.any_horizontal(pl.col(c).is_null() for c in ("query", "item", "label"))
    run_keys = [*binding.slices, "query", "item"]
    bounds = [
        _bad_relevance(
            check,
            f"judgment_{check.name}",
            f"judgments column {relevance_column!r} must {check.rule} (for {metrics}): ",
        )
        for check, metrics in gain_checks(binding.calls)
    ]
    return [
        TableRule(
            "judgment_nulls",
            "judgments must have a query, item and relevance in every row: ",
            " rows do not, e.g. query, item = ",
            (f"SUM(CASE WHEN {null} THEN 1 ELSE 0 END)", f"MIN(CASE WHEN {null} THEN {null_sql} END)", "judgments"),
            lambda t: t.second.filter(any_null).select(n=pl.len(), e=null_polars.min()),
        ),
        _bad_relevance(
            LABEL_RELEVANCE,
            "judgment_relevance",
            f"judgments column {relevance_column!r} must be a finite relevance >= 0: ",
        ),
        *bounds,
        TableRule(
            "judgment_repeated",
            "judgments must judge each (query, item) once: ",
            " pairs are judged more than once, e.g. query, item = ",
            (
                "COUNT(*)",
                f"MIN({pair_sql})",
                "(SELECT query, item FROM judgments GROUP BY query, item HAVING COUNT(*) > 1) AS repeated",
            ),
            lambda t: (
                t.second.group_by("query", "item")
                .len()
                .filter(pl.col("len") > 1)
                .select(n=pl.len(), e=pair_polars.min())
            ),
        ),
        TableRule(
            "run_repeated",
            "a run must rank each item once per query: ",
            " (query, item) pairs have more than one row, e.g. query, item = ",
            (
                "COUNT(*)",
                f"MIN({pair_sql})",
                f"(SELECT {by}, query, item FROM input WHERE w IS NOT NULL GROUP BY {by}, query, item "
                "HAVING COUNT(*) > 1) AS repeated",
            ),
            lambda t: (
                t.rows.filter(pl.col("w").is_not_null())
                .group_by(run_keys)
                .len()
                .filter(pl.col("len") > 1)
                .select(n=pl.len(), e=pair_polars.min())
            ),
        ),
    ]


def class_score_rules(binding: Binding) -> list[TableRule]:
    """The rules of a call with class scores, in the order they are checked: with a long
    table, every row has a row id and a class, each (row id, class) is scored once and
    every source row with a row id has a score for every class of the table; the label
    of every used row is one of the scored classes; no used row has a NaN class score
    (wide: one rule per column, in the mapping's order)."""
    rules = []
    long = binding.long_scores
    if long is not None:
        scored_sql = "(SELECT class FROM long_scores WHERE class IS NOT NULL)"
        null = "row_id IS NULL OR class IS NULL"
        null_sql, null_polars = _null_pair("row_id", "class")
        pair_sql, pair_polars = _key_pair("row_id", "class")

        def missing(t: RuleTables) -> pl.LazyFrame:
            n_classes = t.second.select(pl.col("class").drop_nulls().n_unique()).collect().item()
            short = pl.col("row_id").is_not_null() & (pl.col("n_classes").fill_null(0) < n_classes)
            return t.rows.filter(short).select(n=pl.len(), e=pl.col("row_id").cast(pl.String).min())

        def scored(t: RuleTables) -> pl.Series:
            return t.second.select(pl.col("class").drop_nulls().unique()).collect().to_series()

        rules += [
            TableRule(
                "long_nulls",
                "class_scores must have a row id and a class in every row: ",
                " rows do not, e.g. row id, class = ",
                ("COUNT(*)", f"MIN({null_sql})", f"long_scores WHERE {null}"),
                lambda t: t.second.filter(pl.col("row_id").is_null() | pl.col("class").is_null()).select(
                    n=pl.len(), e=null_polars.min()
                ),
            ),
            TableRule(
                "long_repeated",
                "class_scores must score each (row id, class) once: ",
                " pairs have more than one row, e.g. row id, class = ",
                (
                    "COUNT(*)",
                    f"MIN({pair_sql})",
                    "(SELECT row_id, class FROM long_scores GROUP BY row_id, class HAVING COUNT(*) > 1) AS repeated",
                ),
                lambda t: (
                    t.second.group_by("row_id", "class")
                    .len()
                    .filter(pl.col("len") > 1)
                    .select(n=pl.len(), e=pair_polars.min())
                ),
            ),
            TableRule(
                "long_missing",
                f"class_scores must score every class for every source row (by {long.row_id!r}): ",
                " rows of the source are not, e.g. row id ",
                (
                    "COUNT(*)",
                    "MIN(CAST(row_id AS VARCHAR))",
                    "input WHERE row_id IS NOT NULL "
                    "AND COALESCE(n_classes, 0) < (SELECT COUNT(DISTINCT class) FROM long_scores)",
                ),
                missing,
            ),
        ]
    else:
        scored_sql = f"({', '.join(templates.literal(cls) for cls in binding.class_scores.classes)})"

        def scored(t: RuleTables) -> pl.Series:
            return pl.Series(binding.class_scores.classes, strict=False)

    rules.append(
        TableRule(
            "label_unscored",
            f"label column {binding.label!r} must hold one of the classes of class_scores: ",
            " rows do not, e.g. ",
            (
                "COALESCE(SUM(n), 0)",
                "MIN(CAST(true_class AS VARCHAR))",
                f"base WHERE n > 0 AND true_class NOT IN {scored_sql}",
            ),
            lambda t: (
                t.base.lazy()
                .filter((pl.col("n") > 0) & ~pl.col("true_class").is_in(scored(t).implode()))
                .select(n=pl.col("n").sum(), e=pl.col("true_class").cast(pl.String).min())
            ),
        )
    )

    def nan(t: RuleTables) -> pl.LazyFrame:
        return t.class_hist.lazy().filter(pl.col("score").is_nan())

    if long is not None:
        rules.append(
            TableRule(
                "nan",
                f"class_scores score column {long.score!r} must not be NaN: ",
                " rows are not, e.g. class ",
                ("COALESCE(SUM(n), 0)", "MIN(CAST(class AS VARCHAR))", "class_nan"),
                lambda t: nan(t).select(n=pl.col("n").sum(), e=pl.col("class").cast(pl.String).min()),
            )
        )
    for i, (cls, column) in enumerate(binding.wide_scores, 1):
        rules.append(
            TableRule(
                f"nan_{i}",
                f"class score column {column!r} (class {cls!r}) must not be NaN: ",
                " rows are not",
                ("COALESCE(SUM(n), 0)", "''", f"class_nan WHERE class = {templates.literal(cls)}"),
                lambda t, cls=cls: nan(t).filter(pl.col("class") == cls).select(n=pl.col("n").sum(), e=pl.lit("")),
            )
        )
    return rules


def raise_failed_tables(rules: Sequence[TableRule], tables: RuleTables) -> None:
    """Raise InvalidInputError for the first of ``rules`` the polars ``tables`` break."""
    for rule in rules:
        count, example = rule.polars(tables).collect().row(0)
        if count:
            raise InvalidInputError(f"{rule.before}{count}{rule.between}{example}")
