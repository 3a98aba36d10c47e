"""The rules on a call's second table (the judgments of a run, long class scores) and on
the rows it serves, each written once with its three forms (``TableRule``): the message,
the SQL that counts the rows breaking it (``rules/sql.py`` puts it in a step that
raises ``error()``), and the polars form (``raise_failed_tables``). Both engines raise
the same message with the same count and example.

The rules on a unit (``ci_unit``) are here; a family's rules on its second table are
the family's (``metrics/ranking/rules.py``: the judgments and the run;
``metrics/multiclass/rules.py``: the class scores), written with the ``TableRule`` and
the helpers here (``key_pair``, ``null_pair``) and declared in its ``Hooks``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.errors import Counted, InvalidInputError, Keyword, Part
from sqlmetrics.rules.columns import number_text, number_text_polars, number_text_sql
from sqlmetrics.spec import MetricCall
from sqlmetrics.sqltext import templates

ROWS_DO_NOT = Counted("row does not", "rows do not")


@dataclass(frozen=True)
class RuleTables:
    """The polars frames a table rule reads: ``rows``, the source's rows under canonical
    names (``w`` NULL for an excluded row); ``second``, the judgments or the long class
    scores under canonical names; ``base``, collected; ``class_hist``, the class score
    histogram of the used rows; ``units``, each source row once with its ``unit_id``
    (before a bootstrap's replicates, two paired scores' copies and the joins)."""

    rows: pl.LazyFrame
    second: pl.LazyFrame | None = None
    base: pl.DataFrame | None = None
    class_hist: pl.DataFrame | None = None
    units: pl.LazyFrame | None = None


@dataclass(frozen=True)
class TableRule:
    """A rule on a second table (judgments, long class scores) and the rows it serves,
    over whole rows or pairs of keys, in its three forms, written once here:

    * the message ``{before}{count} {counted}{between}{example}`` (``before`` may name
      keyword arguments: message parts, see ``SqlMetricsError``; ``counted``, the words
      after the count, agree with it: ``1 row does not``, ``2 rows do not``);
    * ``sql``: (count, example, FROM clause), the SQL counting the rows (or pairs) that
      break it and giving the smallest as the example (``rules/sql.py`` raises);
    * ``polars(tables)``: the same as a one-row LazyFrame of ``n`` (the count) and ``e``
      (the example), over the ``RuleTables`` (``raise_failed_tables`` raises).
    """

    name: str
    before: str | tuple[Part, ...]
    counted: Counted
    between: str
    sql: tuple[str, str, str]
    polars: Callable[[RuleTables], pl.LazyFrame]

    @property
    def head(self) -> str:
        """``before`` as Python's message reads it (and the SQL's ``error()``)."""
        return self.before if isinstance(self.before, str) else "".join(map(str, self.before))

    def error(self, rest: str) -> InvalidInputError:
        """The error of this rule: its ``before`` and ``rest`` (count, counted, between, example)."""
        return InvalidInputError(*((self.before,) if isinstance(self.before, str) else self.before), rest)


def key_pair(first: str, second: str) -> tuple[str, pl.Expr]:
    """Two keys shown as ``first, second`` (a repeated pair's example), in SQL and polars."""
    sql = f"CAST({first} AS VARCHAR) || ', ' || CAST({second} AS VARCHAR)"
    return sql, pl.format("{}, {}", pl.col(first).cast(pl.String), pl.col(second).cast(pl.String))


def null_pair(first: str, second: str) -> tuple[str, pl.Expr]:
    """Two keys shown as ``first, second`` with a NULL written ``NULL``, in SQL and polars."""
    sql = f"COALESCE(CAST({first} AS VARCHAR), 'NULL') || ', ' || COALESCE(CAST({second} AS VARCHAR), 'NULL')"
    text = (pl.col(first).cast(pl.String).fill_null("NULL"), pl.col(second).cast(pl.String).fill_null("NULL"))
    return sql, pl.format("{}, {}", *text)


def unit_rules(binding: Binding) -> list[TableRule]:
    """With a unit (``ci_unit``: the intervals clustered or the bootstrap resampled by it),
    every used row has one; with the intervals clustered by it: for the means over queries
    whose unit is not the query (``ClusteredInterval.whole_queries``, their parts are
    their queries'), each query of a slice lies within one unit; for arms compared
    (``sm.compare(arm=...)``), each unit of a slice lies within one arm; over the used rows."""
    clustered = [(call, binding.clustered(call)) for call in binding.analytic_calls]
    return [*_null_unit_rules(binding), *_query_unit_rules(binding, clustered), *_arm_unit_rules(binding, clustered)]


def source_rows_step(binding: Binding) -> str:
    """The step of the statement holding each source row once under canonical names, with
    its ``w`` and ``unit_id`` (``compose/plan.py``'s ``input_steps``): before a bootstrap's
    replicates (``sampled_rows``), two paired scores' copies (``paired_rows``) and the
    long class scores' join (``source_rows``); a run's ``input`` has a row per run row."""
    if "label" not in binding.roles:  # a run's rows, each label joined from its judgments in input
        return "paired_rows" if binding.paired_scores else "input"
    if binding.long_scores is not None:
        return "source_rows"
    if binding.bootstrap:
        return "sampled_rows"
    return "paired_rows" if binding.paired_scores else "input"


def _null_unit_rules(binding: Binding) -> list[TableRule]:
    """Every used row has a unit: a row of unknown unit cannot be placed in the clustered
    interval or the resampled units, and leaving it out would change the metric itself
    (its value must not depend on ``ci_unit``). The example shows the row by its bound
    columns (``_row_text``)."""
    if binding.unit is None:
        return []
    text_sql, text_polars = _row_text(binding)
    missing = pl.col("w").is_not_null() & pl.col("unit_id").is_null()
    return [
        TableRule(
            "unit_nulls",
            (
                Keyword("ci_unit", binding.unit),
                ": every used row must have a unit (the metric uses the row, and an interval clustered or resampled "
                "by unit cannot place a row of unknown unit; fill the unit in, or leave such rows out of the source): ",
            ),
            Counted("row has", "rows have"),
            " a NULL unit, e.g. the row with ",
            (
                "COUNT(*)",
                f"MIN({text_sql})",
                f"{source_rows_step(binding)} WHERE w IS NOT NULL AND unit_id IS NULL",
            ),
            lambda t: t.units.filter(missing).select(n=pl.len(), e=text_polars.min()),
        )
    ]


def _row_text(binding: Binding) -> tuple[str, pl.Expr]:
    """A row shown by its slices, label and score(s) or classes as the user names them
    (``day = 2, label = 1, score = 0.7``), in SQL and polars, over ``source_rows_step``'s
    canonical columns (an integral number without a fraction, as ``number_text``)."""
    shown = [(user, canonical, False) for canonical, user in zip(binding.slices, binding.source_by)]
    if binding.numeric_label and "label" in binding.roles:  # the source's (not a run's judgments)
        shown.append((binding.label, "label", True))
    classes = list(binding.class_roles.items())[: 1 if binding.paired_scores else 2]  # a pair's are its own
    shown += [(binding.columns[role], key, False) for key, role in classes]
    if binding.paired_scores:
        numeric = binding.paired_role == "score"
        shown += [(column, f"{binding.paired_role}_{i}", numeric) for i, column in enumerate(binding.paired_scores, 1)]
    elif binding.score is not None:
        shown.append((binding.score, "score", True))
    shown = shown or [(binding.unit, "unit_id", False)]  # nothing else to show: the unit, NULL
    sql = " || ', ' || ".join(
        f"{templates.literal(f'{user} = ')} || COALESCE({number_text_sql(c) if numeric else _text_sql(c)}, 'NULL')"
        for user, c, numeric in shown
    )
    texts = [
        pl.lit(f"{user} = ") + (number_text_polars(c) if numeric else pl.col(c).cast(pl.String)).fill_null("NULL")
        for user, c, numeric in shown
    ]
    return sql, pl.concat_str(texts, separator=", ")


def _text_sql(column: str) -> str:
    return f"CAST({column} AS VARCHAR)"


def _arm_unit_rules(binding: Binding, clustered: list[tuple[MetricCall, object]]) -> list[TableRule]:
    """Arms compared by intervals clustered by a unit: each unit within one arm (the
    arms' variances add only for independent samples of units)."""
    calls = [call.column for call, form in clustered if form is not None]
    if binding.arm is None or not calls:
        return []
    arm = binding.arm_slice
    groups = [s for s in binding.slices if s not in (arm, *([binding.replicate_slice] if binding.bootstrap else []))]
    keys = [*groups, "unit_id"]
    return [
        TableRule(
            "arm_units",
            (
                Keyword("ci_unit", binding.cluster),
                f" must lie within one arm of column {binding.arm!r} for the clustered intervals of "
                f"{', '.join(calls)} (the arms' variances add only for arms of different units; ",
                Keyword("ci_method", "bootstrap"),
                " resamples each unit once for all its arms): ",
            ),
            Counted("unit has", "units have"),
            " rows in more than one arm, e.g. unit = ",
            (
                "COUNT(*)",
                "CAST(MIN(unit_id) AS VARCHAR)",
                f"(SELECT {', '.join(keys)} FROM input WHERE w IS NOT NULL GROUP BY {', '.join(keys)} "
                f"HAVING COUNT(DISTINCT {arm}) > 1) AS split",
            ),
            lambda t: (
                t.rows.filter(pl.col("w").is_not_null())
                .group_by(keys)
                .agg(arms=pl.col(arm).drop_nulls().n_unique())
                .filter(pl.col("arms") > 1)
                .select(n=pl.len(), e=pl.col("unit_id").min().cast(pl.String))  # as SQL writes it
            ),
        )
    ]


def _query_unit_rules(binding: Binding, clustered: list[tuple[MetricCall, object]]) -> list[TableRule]:
    """The means over queries clustered by a unit: each query of a slice within one unit."""
    calls = [call.column for call, form in clustered if form is not None and form.whole_queries]
    if not calls:
        return []
    by, keys = ", ".join(binding.slices), [*binding.slices, "query"]
    return [
        TableRule(
            "query_units",
            (
                Keyword("ci_unit", binding.cluster),
                f" must hold each query of column {binding.query!r} whole for the clustered interval of "
                f"{', '.join(calls)}: ",
            ),
            Counted("query has", "queries have"),
            " rows of more than one unit, e.g. query = ",
            (
                "COUNT(*)",
                "CAST(MIN(query) AS VARCHAR)",
                f"(SELECT {by}, query FROM input WHERE w IS NOT NULL GROUP BY {by}, query "
                "HAVING COUNT(DISTINCT unit_id) > 1) AS split",
            ),
            lambda t: (
                t.rows.filter(pl.col("w").is_not_null())
                .group_by(keys)
                .agg(units=pl.col("unit_id").n_unique())
                .filter(pl.col("units") > 1)
                .select(n=pl.len(), e=pl.col("query").min().cast(pl.String))  # as SQL writes it
            ),
        )
    ]


def raise_failed_tables(rules: Sequence[TableRule], tables: RuleTables) -> None:
    """Raise InvalidInputError for the first of ``rules`` the polars ``tables`` break."""
    for rule in rules:
        count, example = rule.polars(tables).collect().row(0)
        if count:
            raise rule.error(f"{rule.counted.of(count)}{rule.between}{number_text(example)}")


def with_keywords(error: InvalidInputError, rules: Sequence[TableRule]) -> InvalidInputError:
    """``error`` as the SQL of one of ``rules`` raised it (text) with the keyword arguments
    its rule's message names, so that other interfaces can name them their own way."""
    text = str(error)
    for rule in rules:
        if not isinstance(rule.before, str) and text.startswith(rule.head):
            return rule.error(text[len(rule.head) :])
    return error
