"""Multiclass's input rules on class scores (``class_score_rules``: a long table's keys,
every class scored, every label a scored class, no NaN score), each a
``rules.tables.TableRule`` written once with its message, SQL and polars form, and their
SQL step ``class_checks`` (``class_checks_sql``, placed by multiclass's ``Hooks`` after
``class_nan``; the polars engine raises their polars forms)."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.errors import Counted, Keyword, SqlMetricsError
from sqlmetrics.metrics.multiclass._ovr import class_score_hist, long_rows, wide_rows
from sqlmetrics.rules.columns import ROWS_ARE_NOT
from sqlmetrics.rules.schema import check_column, class_kind
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


def check_classes(label: str, label_type: str, prediction: str, prediction_type: str) -> str:
    """The kind of class shared by the label and prediction columns (``rules.schema.class_kind``),
    or an error naming both columns and their types."""
    kinds = []
    for role, column, type_name in (("label", label, label_type), ("prediction", prediction, prediction_type)):
        kinds.append(class_kind(type_name))
        if kinds[-1] is None:
            raise SqlMetricsError(
                f"{role} column {column!r} has type {type_name}; a class must be a number, string or boolean"
            )
    if kinds[0] != kinds[1]:
        raise SqlMetricsError(
            f"label column {label!r} ({label_type}) and prediction column {prediction!r} ({prediction_type}) "
            "cannot be compared: classes must be numbers (or booleans) in both or strings in both"
        )
    return kinds[0]


def check_class_schema(binding: Binding, schema: Mapping[str, str]) -> None:
    """Raise, on the source's ``schema`` (``steps.Hooks.source_schema``), for label and
    prediction columns whose classes cannot be compared, or wide class-score columns that
    are missing or not numeric or whose classes are not of the label's kind."""
    if binding.multiclass:
        for prediction in binding.paired_scores or (binding.prediction,):
            check_classes(binding.label, schema[binding.label], prediction, schema[prediction])
    for cls, column in binding.wide_scores:
        check_column(schema, f"class {cls!r} score", column, "the source has", numeric=True)
    if binding.class_scores is None:
        return
    label_kind = class_kind(schema[binding.label])
    if label_kind is None:
        raise SqlMetricsError(
            f"label column {binding.label!r} has type {schema[binding.label]}; a class must be a number, string "
            "or boolean"
        )
    if binding.wide_scores and label_kind != binding.class_scores.kind:
        classes = ", ".join(map(repr, binding.class_scores.classes))
        raise SqlMetricsError(
            f"label column {binding.label!r} ({schema[binding.label]}) cannot be compared with the classes of ",
            Keyword("class_scores"),
            f" ({classes}): classes must be numbers (or booleans) in both or strings in both",
        )


def check_long_schema(binding: Binding, schema: Mapping[str, str], source_schema: Mapping[str, str]) -> None:
    """Raise for a column the long class-score table lacks, a score that is not numeric,
    a class column that cannot be compared with the label, or a row id column of
    another kind than the source's (numbers and strings do not join): the second table's
    rules when it holds long class scores (``steps.Hooks.second_schema``)."""
    long = binding.long_scores
    if long is None:
        return
    roles = (("row id", long.row_id, False), ("class", long.class_, False), ("score", long.score, True))
    for role, column, numeric in roles:
        check_column(schema, _long_role(role), column, _LONG_TABLE_HAS, numeric)
    pairs = (("label", binding.label, "class", long.class_), ("row id", long.row_id, "row id", long.row_id))
    for source_role, source_column, role, column in pairs:
        kinds = (class_kind(source_schema[source_column]), class_kind(schema[column]))
        if kinds[1] is None and role == "class":
            raise SqlMetricsError(
                _long_role(role), f" column {column!r} has type {schema[column]}; expected a number, string or boolean"
            )
        if kinds[0] != kinds[1] and None not in kinds:  # row ids of other types (dates) join as they are
            raise SqlMetricsError(
                f"{source_role} column {source_column!r} ({source_schema[source_column]}) and ",
                _long_role(role),
                f" column {column!r} ({schema[column]}) cannot be compared: both must be numbers (or booleans) or "
                "both strings",
            )


# The long class-score table and its columns, as messages name them: ``sm.long_scores``' keywords.
_LONG_TABLE_HAS = Keyword("long_scores", python="the class scores have", words="the {option} table has")
_LONG_KEYWORDS = {"row id": "row_id", "class": "class_", "score": "score"}


def _long_role(role: str) -> Keyword:
    """The long table's column of ``role`` (row id, class, score) as a message names it."""
    return Keyword(f"long_scores.{_LONG_KEYWORDS[role]}", python=f"class_scores {role}")


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
