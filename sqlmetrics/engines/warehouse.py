"""What the engines that run the composed statement in another dialect share (Spark,
PostgreSQL, ClickHouse): their skeleton (``run_on``: the source's and second table's
relations and schemas checked, the statement in the engine's dialect, its rows), what each
defines (a ``Warehouse``), the statement itself, the quoted name of a table, the columns
of a frame they load, and the statement's refusal of bad data read back from the engine's
error."""

from __future__ import annotations

import functools
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager
from typing import Any, ClassVar

import polars as pl
import pyarrow as pa

from sqlmetrics.binding import Binding
from sqlmetrics.compose import compose
from sqlmetrics.engines.record import check_second_schema, check_source_schema
from sqlmetrics.errors import InvalidInputError, SqlMetricsError
from sqlmetrics.rules.columns import ERROR_PREFIX
from sqlmetrics.sources import FRAME_VIEW, second_view, table_sql
from sqlmetrics.sqltext.dialects import transpile

# Where an engine's own text resumes after the message on its first line: the quote
# closing a failed cast's value (PostgreSQL), Spark's SQLSTATE, DataFusion's and
# ClickHouse's cast errors.
_MESSAGE_END = re.compile(r"(\"|\s*SQLSTATE.*|' to value of .*|' as Int32: .*)$")
# A character ClickHouse escapes with a backslash when it quotes a string in an error.
_ESCAPED = re.compile(r"\\(.)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f"}


class Warehouse(ABC):
    """One call's use of a warehouse engine (its connection or session, the temporary
    tables or views it made, dropped when the call ends: the context manager each engine
    opens for ``run_on``): how it reads a source and runs a statement."""

    dialect: ClassVar[str]

    def __init__(self, connection: Any) -> None:
        self.connection = connection  # a connection, a client or a session
        self.temporaries: list[str] = []  # the temporary tables or views it made

    @abstractmethod
    def relation(
        self, source: Any, view: str, columns: tuple[str, ...], check: Callable[[dict[str, str]], None]
    ) -> tuple[str, dict[str, str]]:
        """How the statement reads ``source`` (a table's name, or a frame's read ``columns``
        under a temporary name starting with ``view``) and its schema as {column: the
        engine's type name}, which ``check`` (the schema rules) has passed."""

    @abstractmethod
    def rows(self, sql: str) -> pl.DataFrame:
        """The rows of the statement ``sql``; its refusal of bad data raised as
        InvalidInputError (``refusal``)."""

    def finished(self, result: pl.DataFrame, binding: Binding, schema: dict[str, str]) -> pl.DataFrame:
        """``result`` as the other engines give it (``schema``: the source's)."""
        return result


def run_on(
    opened: AbstractContextManager[Warehouse], binding: Binding, source: Any, second: Any = None
) -> pl.DataFrame:
    """Every metric of ``binding`` over ``source`` (and ``second``: the judgments of a run,
    or long class scores) with one statement in the dialect of the warehouse ``opened``,
    its schemas checked first, its temporary tables dropped after it."""
    with opened as warehouse:
        from_sql, schema = warehouse.relation(
            source, FRAME_VIEW, binding.source_columns, functools.partial(check_source_schema, binding)
        )
        second_sql = None
        if second is not None:
            view = second_view(binding.second_role)
            second_sql, _ = warehouse.relation(
                second, view, binding.second_columns, lambda found: check_second_schema(binding, found, schema)
            )
        result = warehouse.rows(composed_in_dialect(binding, from_sql, second_sql, warehouse.dialect))
        return warehouse.finished(result, binding, schema)


def composed_in_dialect(binding: Binding, source_sql: str, second_sql: str | None, dialect: str) -> str:
    """The statement computing the call's metrics, written for ``dialect``."""
    return transpile(compose(binding, source_sql, second_sql, dialect), dialect)


def relation(name: str, dialect: str) -> str:
    """``SELECT * FROM <name>``, the name quoted part by part for ``dialect``."""
    return transpile(f"SELECT * FROM {table_sql(name)}", dialect)


def frame_schema(frame: Any) -> dict[str, str]:
    """{column: type name} of a polars or pyarrow frame (or a pyarrow dataset), its rows
    unread: polars' names for a polars frame, Arrow's for the others."""
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        return {name: str(kind) for name, kind in frame.collect_schema().items()}
    return {field.name: str(field.type) for field in frame.schema}


def read_columns(frame: Any, columns: Collection[str], engine: str) -> pa.Table:
    """The columns of ``frame`` that the call reads (``columns``: those the frame has) as an
    Arrow table, in the frame's order. An engine loads only these: the name or type of a
    column the call does not read never reaches it. A read column whose name holds a NUL
    is refused (polars cannot hand it over: its names end at a NUL in Arrow's C interface)."""
    names = frame.collect_schema().names() if isinstance(frame, (pl.DataFrame, pl.LazyFrame)) else frame.schema.names
    wanted = set(columns)
    read = [i for i, name in enumerate(names) if name in wanted]
    unreadable = [names[i] for i in read if "\x00" in names[i]]
    if unreadable:
        raise SqlMetricsError(
            f"column {unreadable[0]!r} has a NUL character in its name, which engine={engine!r} cannot read: "
            "rename it, or use engine='polars'"
        )
    repeated = [names[i] for i in read if names.count(names[i]) > 1]
    if repeated:  # a pyarrow table's names may repeat
        raise SqlMetricsError(
            f"column {repeated[0]!r} appears {names.count(repeated[0])} times in the frame: which one is meant is "
            "unclear: rename the others"
        )
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        selected = frame.select(pl.nth(read))  # by position: a name like ``^a.*$`` would read as a pattern
        return (selected.collect() if isinstance(selected, pl.LazyFrame) else selected).to_arrow()
    if isinstance(frame, pa.Table):
        return frame.select(read)
    return frame.to_table(columns=[names[i] for i in read])  # a pyarrow dataset (a Delta table's snapshot)


def refusal(error: Exception, escaped: bool = False) -> InvalidInputError | None:
    """The statement's refusal of bad data (``sqlmetrics: ...``) in an engine's error, if
    the error is one: its first line (engines echo the statement further down, and the
    statement holds every message it could raise). ``escaped``: the engine quotes the
    message with backslash escapes (ClickHouse), which are undone."""
    lines = str(error).strip().splitlines()
    if not lines or ERROR_PREFIX not in lines[0]:
        return None
    message = _MESSAGE_END.sub("", lines[0].split(ERROR_PREFIX, 1)[1])
    if escaped:
        message = _ESCAPED.sub(lambda match: _ESCAPES.get(match.group(1), match.group(1)), message)
    return InvalidInputError(message.strip())
