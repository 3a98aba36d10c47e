"""The rules on the source's schema, checked before any statement is composed: every
bound column is there (in the source, the judgments or the long class scores), a score
or weight is numeric, a label is numeric where a metric reads it as a number, classes
compared with each other are of one kind (numbers or strings), and no column has a type
that not every engine reads alike.

``schema`` maps column names to type names, in DuckDB's or polars' spelling: the engines
read it from the source and call ``check_schema``, and each family's hooks
(``steps.Hooks.source_schema``, ``second_schema``), which check the classes and class
scores (``metrics/multiclass/rules.py``) and a second table (the judgments:
``metrics/ranking/rules.py``; long class scores) with ``check_columns`` and ``class_kind``.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlmetrics.binding import ROWS, Binding
from sqlmetrics.errors import ColumnNotFoundError, Keyword, Part, SqlMetricsError

NUMERIC_TYPE_WORDS = ("int", "float", "double", "decimal", "real", "numeric", "bool")
TEXT_TYPE_WORDS = ("varchar", "string", "utf8", "char", "text", "categorical", "enum")


# Lists, arrays, structs, maps and unions: polars' List(Float64), Struct({...}), Array(...);
# DuckDB's DOUBLE[], DOUBLE[3], STRUCT(...), MAP(...); Spark's array<double>, struct<...>.
NESTED_TYPE_WORDS = ("list", "array", "struct", "map", "union")


def is_nested_type(type_name: str) -> bool:
    """True for a type holding several values per row (a list, struct, map, ...)."""
    kind = type_name.lower().strip()
    return kind.startswith(NESTED_TYPE_WORDS) or kind.endswith("]")


def is_numeric_type(type_name: str) -> bool:
    """True for DuckDB's and polars' numeric and boolean type names (INTEGER, Float64, ...),
    not for a list or struct of them."""
    kind = type_name.lower()
    if kind.startswith("interval") or is_nested_type(kind):
        return False
    return any(word in kind for word in NUMERIC_TYPE_WORDS)


def class_kind(type_name: str) -> str | None:
    """What a class column holds: ``number`` (numbers and booleans, compared by value),
    ``text`` (strings, categoricals, enums), or None for a type that cannot be a class."""
    if is_numeric_type(type_name):
        return "number"
    if is_nested_type(type_name):
        return None
    return "text" if any(word in type_name.lower() for word in TEXT_TYPE_WORDS) else None


def check_schema(binding: Binding, schema: Mapping[str, str]) -> None:
    """Raise for a bound column the source lacks, a score or weight that is not numeric, a
    label that is not numeric where a metric reads it as a number, a role a family adds
    that is not numeric, or a type not every engine reads alike (``check_columns``); a
    family's own rules on its roles' columns (classes compared, class-score columns) are
    its hooks' (``steps.Hooks.source_schema``).

    ``schema`` maps column names to type names (DuckDB's or polars' spelling).
    """
    columns = [*binding.roles.items(), *(("by", c) for c in binding.source_by)]
    columns += [("ci_unit", binding.unit)] if binding.unit is not None else []
    if binding.rows_unit and ROWS in schema:
        raise SqlMetricsError(
            Keyword("ci_unit", ROWS),
            f" declares each row its own unit (the word is reserved: it never names a column), but the source "
            f"also has a column {ROWS!r}: rename that column, whether you meant the rows or that column as the "
            "unit",
        )
    columns += [(binding.paired_role, column) for column in (binding.paired_scores or ())[1:]]
    check_columns(binding, schema, columns, "the source has")


def check_columns(binding: Binding, schema: Mapping[str, str], columns: list[tuple[str, str]], where: Part) -> None:
    """Raise for a column of ``columns`` ((role, column) of a table whose ``schema`` is
    given: ``where`` says which, "the source has") that the table lacks, that is not
    numeric where the call reads its role as a number, or whose type not every engine
    reads alike."""
    numeric = ("label", "score", "weight") if binding.numeric_label else ("score", "weight")
    numeric += binding.generic_roles  # a role a family declares is read as a number
    for role, column in columns:
        named = Keyword("long_scores.row_id", python=role) if role == "row_id" else role  # sm.long_scores' keyword
        check_column(schema, named, column, where, role in numeric)
        _check_supported_type(role, column, schema[column])


def _check_supported_type(role: str, column: str, type_name: str) -> None:
    """Raise for a type no engine reads alike: 128-bit integers (polars Int128, DuckDB
    HUGEINT; DuckDB cannot read them from a frame), as a slice, durations (DuckDB
    returns its INTERVAL in a form polars does not read), and as ``ci_unit``, a list or
    struct (polars neither orders nor shows them as DuckDB does). The message names the kind,
    not an engine's type name, so that every engine says the same."""
    kind = type_name.lower()
    if "int128" in kind or "hugeint" in kind:
        raise SqlMetricsError(
            f"{role} column {column!r} holds 128-bit integers, which not every engine reads: cast it to a 64-bit "
            "integer, a float or a string"
        )
    if role == "ci_unit" and is_nested_type(kind):
        raise SqlMetricsError(
            Keyword("ci_unit", column),
            ": the column holds several values per row (a list, array, struct or map), which cannot be a unit: "
            "the engines do not order or group them alike; give each unit one value (a number, string or date), "
            "e.g. the list cast to a string",
        )
    if role == "by" and (kind.startswith("duration") or kind.startswith("interval")):
        raise SqlMetricsError(
            f"by column {column!r} holds durations, which cannot be a slice: cast it to a number "
            "(e.g. .dt.total_seconds()) or a string"
        )


def check_column(schema: Mapping[str, str], role: Part, column: str, where: Part, numeric: bool) -> None:
    """Raise when the table of ``schema`` (``where``: "the source has") lacks ``column``
    (of ``role``, as the message names it), or it is not numeric where it must be."""
    if column not in schema:
        available = ", ".join(schema) or "none"
        raise ColumnNotFoundError(role, f" column {column!r} not found; ", where, f": {available}")
    if numeric and not is_numeric_type(schema[column]):
        raise SqlMetricsError(role, f" column {column!r} has type {schema[column]}; expected a number or boolean")
