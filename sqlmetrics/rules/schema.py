"""The rules on the source's schema, checked before any statement is composed: every
bound column is there (in the source, the judgments or the long class scores), a score
or weight is numeric, a label is numeric where a metric reads it as a number, classes
compared with each other are of one kind (numbers or strings), and no column has a type
that not every engine reads alike.

``schema`` maps column names to type names, in DuckDB's or polars' spelling: the engines
read it from the source and call ``check_schema`` and ``check_second_schema``; the polars
form of the multi-class metrics checks its classes with ``check_classes``.
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


def check_classes(label: str, label_type: str, prediction: str, prediction_type: str) -> str:
    """The kind of class shared by the label and prediction columns (see ``class_kind``),
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


def check_schema(binding: Binding, schema: Mapping[str, str], *, judgments: bool = False) -> None:
    """Raise for a bound column the source (or the judgments) lacks, a score or weight
    that is not numeric, a label that is not numeric where a metric reads it as a number,
    label and prediction columns whose classes cannot be compared, or wide class-score
    columns that are missing or not numeric or whose classes are not of the label's kind.

    ``schema`` maps column names to type names (DuckDB's or polars' spelling).
    """
    if judgments:
        columns, where = list(binding.judgment_roles.items()), "the judgments have"
    else:
        columns, where = [*binding.roles.items(), *(("by", c) for c in binding.source_by)], "the source has"
        columns += [("ci_unit", binding.unit)] if binding.unit is not None else []
        if binding.rows_unit and ROWS in schema:
            raise SqlMetricsError(
                Keyword("ci_unit", ROWS),
                f" declares each row its own unit (the word is reserved: it never names a column), but the source "
                f"also has a column {ROWS!r}: rename that column, whether you meant the rows or that column as the "
                "unit",
            )
        columns += [(binding.paired_role, column) for column in (binding.paired_scores or ())[1:]]
    numeric = ("label", "score", "weight") if binding.numeric_label else ("score", "weight")
    numeric += binding.generic_roles  # a role a family declares is read as a number
    for role, column in columns:
        named = Keyword("long_scores.row_id", python=role) if role == "row_id" else role  # sm.long_scores' keyword
        _check_column(schema, named, column, where, role in numeric)
        _check_supported_type(role, column, schema[column])
    if judgments:
        return
    if binding.multiclass:
        for prediction in binding.paired_scores or (binding.prediction,):
            check_classes(binding.label, schema[binding.label], prediction, schema[prediction])
    for cls, column in binding.wide_scores:
        _check_column(schema, f"class {cls!r} score", column, where, numeric=True)
    if binding.class_scores is not None:
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
    another kind than the source's (numbers and strings do not join)."""
    long = binding.long_scores
    roles = (("row id", long.row_id, False), ("class", long.class_, False), ("score", long.score, True))
    for role, column, numeric in roles:
        _check_column(schema, _long_role(role), column, _LONG_TABLE_HAS, numeric)
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


def check_second_schema(binding: Binding, schema: Mapping[str, str], source_schema: Mapping[str, str]) -> None:
    """Check the call's second table: the long class scores, or else the judgments."""
    if binding.long_scores is not None:
        check_long_schema(binding, schema, source_schema)
    else:
        check_schema(binding, schema, judgments=True)
        _check_judgment_keys(binding, schema, source_schema)


_KIND_WORDS = {"number": "numbers", "text": "strings", None: "neither numbers nor strings"}


def _check_judgment_keys(binding: Binding, schema: Mapping[str, str], source_schema: Mapping[str, str]) -> None:
    """Raise when the run's query or item column and the judgments' hold different kinds of
    value (numbers, strings): they could not be joined (polars refuses, DuckDB would cast).
    The message names kinds, not type names, so that every engine says the same."""
    for role in ("query", "item"):
        column = binding.judgment_roles[role]
        kinds = (class_kind(source_schema[column]), class_kind(schema[column]))
        if kinds[0] != kinds[1]:
            raise SqlMetricsError(
                f"{role} column {column!r} of the run holds {_KIND_WORDS[kinds[0]]} and {role} column {column!r} of "
                f"the judgments holds {_KIND_WORDS[kinds[1]]}: the judgments are joined to the run by query and item, "
                "so both must be numbers or both strings"
            )


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


def _check_column(schema: Mapping[str, str], role: Part, column: str, where: Part, numeric: bool) -> None:
    if column not in schema:
        available = ", ".join(schema) or "none"
        raise ColumnNotFoundError(role, f" column {column!r} not found; ", where, f": {available}")
    if numeric and not is_numeric_type(schema[column]):
        raise SqlMetricsError(role, f" column {column!r} has type {schema[column]}; expected a number or boolean")
