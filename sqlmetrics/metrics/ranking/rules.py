"""Ranking's input rules on a run and its judgments (``run_rules``), each a
``rules.tables.TableRule`` written once with its message, SQL and polars form, and their
SQL step ``run_checks`` (``run_checks_sql``, placed by ranking's ``Hooks``; the polars
engine raises their polars forms)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.errors import Counted, SqlMetricsError
from sqlmetrics.rules.columns import LABEL_RELEVANCE, ROWS_ARE_NOT, Check, checks_for, number_text_sql
from sqlmetrics.rules.schema import check_columns, class_kind
from sqlmetrics.rules.sql import rules_sql
from sqlmetrics.rules.tables import ROWS_DO_NOT, TableRule, key_pair, null_pair
from sqlmetrics.spec import MetricCall


def gain_checks(calls: Sequence[MetricCall]) -> list[tuple[Check, str]]:
    """The relevance bounds of the calls' gains, with the metrics that need each: they hold
    for the judgments too, whose items feed the ideal DCG even when the run misses them."""
    return [(check, metrics) for check, metrics in checks_for(calls, False) if check.name.endswith("_gain")]


def _bad_relevance(check: Check, name: str, before: str) -> TableRule:
    """A relevance rule (``check``) over the judgments: the rows breaking it, the smallest
    bad relevance as the example."""
    return TableRule(
        name,
        before,
        ROWS_ARE_NOT,
        ", e.g. ",
        (
            f"SUM(CASE WHEN {check.sql} THEN 1 ELSE 0 END)",
            number_text_sql(f"MIN(CASE WHEN {check.sql} THEN label END)"),
            "judgments",
        ),
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
    null_sql, null_polars = null_pair("query", "item")
    pair_sql, pair_polars = key_pair("query", "item")
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
            ROWS_DO_NOT,
            ", e.g. query, item = ",
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
            Counted("pair is judged", "pairs are judged"),
            " more than once, e.g. query, item = ",
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
            Counted("(query, item) pair has", "(query, item) pairs have"),
            " more than one row, e.g. query, item = ",
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


def judgment_rules(binding: Binding) -> list[TableRule]:
    """``run_rules`` for a run with judgments, none without (ranking's ``Hooks.table_rules``)."""
    return run_rules(binding) if binding.judgments else []


def check_judgments_schema(binding: Binding, schema: Mapping[str, str], source_schema: Mapping[str, str]) -> None:
    """Raise, when the second table holds a run's judgments (``steps.Hooks.second_schema``),
    for its query, item or label column missing (the label not numeric where a metric
    reads it as a number), or a query or item column holding another kind of value than
    the run's (numbers, strings): they could not be joined (polars refuses, DuckDB would
    cast). The message names kinds, not type names, so that every engine says the same."""
    if not binding.judgments:
        return
    check_columns(binding, schema, list(binding.judgment_roles.items()), "the judgments have")
    for role in ("query", "item"):
        column = binding.judgment_roles[role]
        kinds = (class_kind(source_schema[column]), class_kind(schema[column]))
        if kinds[0] != kinds[1]:
            raise SqlMetricsError(
                f"{role} column {column!r} of the run holds {_KIND_WORDS[kinds[0]]} and {role} column {column!r} of "
                f"the judgments holds {_KIND_WORDS[kinds[1]]}: the judgments are joined to the run by query and item, "
                "so both must be numbers or both strings"
            )


_KIND_WORDS = {"number": "numbers", "text": "strings", None: "neither numbers nor strings"}


def judged_table(binding: Binding, table: pl.LazyFrame, source_schema: dict[str, str]) -> pl.LazyFrame | None:
    """A run's judgments under canonical names (query, item, label: the relevance) once
    their schema holds (the polars engine's ``steps.Hooks.polars_second``); None without
    judgments."""
    if not binding.judgments:
        return None
    check_judgments_schema(binding, {name: str(dtype) for name, dtype in table.collect_schema().items()}, source_schema)
    return table.select(
        query=pl.col(binding.judgment_roles["query"]),
        item=pl.col(binding.judgment_roles["item"]),
        label=pl.col(binding.label).cast(pl.Float64),
    )


def run_checks_sql(binding: Binding) -> str:
    """The rules of ``run_rules``: no NULL or negative relevance, each (query, item)
    judged at most once and ranked at most once per list."""
    return rules_sql(run_rules(binding))
