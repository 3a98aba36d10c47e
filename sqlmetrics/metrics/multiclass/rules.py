"""Multiclass's input rules on class scores (``class_score_rules``: a long table's keys,
every class scored, every label a scored class, no NaN score), each a
``rules.tables.TableRule`` written once with its message, SQL and polars form, and their
SQL step ``class_checks`` (``class_checks_sql``, placed by multiclass's ``Hooks`` after
``class_nan``; the polars engine raises their polars forms)."""

from __future__ import annotations

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.errors import Counted, Keyword
from sqlmetrics.metrics.multiclass._ovr import class_score_hist, long_rows, wide_rows
from sqlmetrics.rules.columns import ROWS_ARE_NOT
from sqlmetrics.rules.schema import check_long_schema
from sqlmetrics.rules.sql import rules_sql
from sqlmetrics.rules.tables import ROWS_DO_NOT, RuleTables, TableRule, key_pair, null_pair, raise_failed_tables
from sqlmetrics.sqltext import templates

# The class scores as the rules' messages name them (sm.long_scores' table and keywords).
_LONG_TABLE = Keyword("long_scores", python="class_scores")
_LONG_SCORE = Keyword("long_scores.score", python="class_scores score")
_SCORED_CLASSES = Keyword("class_scores", python="the classes of class_scores", words="the scored classes")


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
        null_sql, null_polars = null_pair("row_id", "class")
        pair_sql, pair_polars = key_pair("row_id", "class")

        def missing(t: RuleTables) -> pl.LazyFrame:
            n_classes = t.second.select(pl.col("class").drop_nulls().n_unique()).collect().item()
            short = pl.col("row_id").is_not_null() & (pl.col("n_classes").fill_null(0) < n_classes)
            return t.rows.filter(short).select(n=pl.len(), e=pl.col("row_id").cast(pl.String).min())

        def scored(t: RuleTables) -> pl.Series:
            return t.second.select(pl.col("class").drop_nulls().unique()).collect().to_series()

        rules += [
            TableRule(
                "long_nulls",
                (_LONG_TABLE, " must have a row id and a class in every row: "),
                ROWS_DO_NOT,
                ", e.g. row id, class = ",
                ("COUNT(*)", f"MIN({null_sql})", f"long_scores WHERE {null}"),
                lambda t: t.second.filter(pl.col("row_id").is_null() | pl.col("class").is_null()).select(
                    n=pl.len(), e=null_polars.min()
                ),
            ),
            TableRule(
                "long_repeated",
                (_LONG_TABLE, " must score each (row id, class) once: "),
                Counted("pair has", "pairs have"),
                " more than one row, e.g. row id, class = ",
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
                (_LONG_TABLE, f" must score every class for every source row (by {long.row_id!r}): "),
                Counted("row of the source is not", "rows of the source are not"),
                ", e.g. row id ",
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
            (f"label column {binding.label!r} must hold one of ", _SCORED_CLASSES, ": "),
            ROWS_DO_NOT,
            ", e.g. ",
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
                (_LONG_SCORE, f" column {long.score!r} must not be NaN: "),
                ROWS_ARE_NOT,
                ", e.g. class ",
                ("COALESCE(SUM(n), 0)", "MIN(CAST(class AS VARCHAR))", "class_nan"),
                lambda t: nan(t).select(n=pl.col("n").sum(), e=pl.col("class").cast(pl.String).min()),
            )
        )
    for i, (cls, column) in enumerate(binding.wide_scores, 1):
        rules.append(
            TableRule(
                f"nan_{i}",
                f"class score column {column!r} (class {cls!r}) must not be NaN: ",
                ROWS_ARE_NOT,
                "",
                ("COALESCE(SUM(n), 0)", "''", f"class_nan WHERE class = {templates.literal(cls)}"),
                lambda t, cls=cls: nan(t).filter(pl.col("class") == cls).select(n=pl.col("n").sum(), e=pl.lit("")),
            )
        )
    return rules


def class_rules(binding: Binding) -> list[TableRule]:
    """``class_score_rules`` for a call with class scores, none without (multiclass's
    ``Hooks.table_rules``)."""
    return class_score_rules(binding) if binding.class_scores is not None else []


def long_table(binding: Binding, table: pl.LazyFrame, source_schema: dict[str, str]) -> pl.LazyFrame | None:
    """Long class scores under canonical names (row_id, class, score) once their schema
    holds (the polars engine's ``steps.Hooks.polars_second``); None without them."""
    long = binding.long_scores
    if long is None:
        return None
    check_long_schema(binding, {name: str(dtype) for name, dtype in table.collect_schema().items()}, source_schema)
    return table.select(
        row_id=pl.col(long.row_id), **{"class": pl.col(long.class_)}, score=pl.col(long.score).cast(pl.Float64)
    )


def checked_class_score_hist(
    binding: Binding, rows: pl.LazyFrame, second: pl.LazyFrame | None, base: pl.DataFrame
) -> dict[str, pl.DataFrame]:
    """With class scores bound, the polars engine's class score histogram of the used
    ``rows`` (wide scores unpivoted, long scores joined by row id: ``_ovr.py``), once their
    rules hold (bound class scores are checked, whatever reads them): ``steps.Hooks.polars_steps``."""
    if binding.class_scores is None:
        return {}
    slices = list(binding.slices)
    used = rows.filter(pl.col("w").is_not_null())
    if binding.long_scores is not None:
        class_rows = long_rows(used, slices, second)
    else:
        class_rows = wide_rows(used, slices, binding.class_scores.classes)
    hist = class_score_hist(class_rows, slices).collect(engine="streaming")
    raise_failed_tables(class_score_rules(binding), RuleTables(rows, second, base, hist))
    return {"class_score_hist": hist}


def class_checks_sql(binding: Binding) -> str:
    """The rules of ``class_score_rules``, raising ``error()`` on the first broken."""
    return rules_sql(class_score_rules(binding))
