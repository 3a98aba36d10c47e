"""The ClickHouse engine: runs the composed statement, written in ClickHouse's dialect
(with the SETTINGS it needs: ``sqlmetrics.sqltext.dialects``), and returns a polars frame.

``con`` is a chdb session (``chdb.session.Session()``, embedded ClickHouse), a
clickhouse-connect client (``clickhouse_connect.get_client(...)``: a server's, or chdb's
in-process one with ``interface="chdb"``), or None: a chdb session is opened for the call
and closed after it. ``source`` (and the judgments or long class scores) is the name of
a table or view the connection reads (``"database.table"``), or a polars or pyarrow
frame, which is loaded into a temporary table (a name no user has, dropped after the
call). chdb and clickhouse-connect are optional (``pip install 'sqlmetrics[clickhouse]'``);
chdb is imported only when no ``con`` is passed.
"""

from __future__ import annotations

import contextlib
import io
import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from sqlmetrics.binding import Binding
from sqlmetrics.engines.record import Engine
from sqlmetrics.engines.warehouse import Warehouse, frame_schema, read_columns, refusal, run_on
from sqlmetrics.errors import InvalidParameterError, SourceError, shown
from sqlmetrics.sources import is_frame, is_path, table_sql
from sqlmetrics.sqltext.templates import literal, quote

# A timestamp's unit as DateTime64's precision (digits of a second).
_TIME_UNITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}
# The wrappers of a column's type that do not change what it holds.
_WRAPPER = re.compile(r"^(?:Nullable|LowCardinality)\((.*)\)$")


def run(binding: Binding, source: Any, second: Any = None, *, con: Any = None, spark: Any = None) -> pl.DataFrame:
    """Compute every metric of ``binding`` over ``source`` with one ClickHouse statement, on
    ``con`` or a chdb session of the call's own (``record.Run``)."""
    return run_on(_connected(con), binding, source, second)


@contextlib.contextmanager
def _connected(con: Any) -> Iterator[_ClickHouse]:
    """The call on ``con`` (or a chdb session); the temporary tables it made dropped after it."""
    with _connection(con) as connection:
        call = _ClickHouse(connection)
        try:
            yield call
        finally:
            for name in call.temporaries:
                connection.execute(f"DROP TEMPORARY TABLE IF EXISTS {quote(name, 'clickhouse')}")


class _ClickHouse(Warehouse):
    """A call on a chdb session or a clickhouse-connect client: a source by name, or a
    frame loaded into a temporary table (``_relation``)."""

    dialect = "clickhouse"

    def relation(
        self, source: Any, view: str, columns: tuple[str, ...], check: Callable[[dict[str, str]], None]
    ) -> tuple[str, dict[str, str]]:
        return _relation(self.connection, source, view, columns, self.temporaries, check)

    def rows(self, sql: str) -> pl.DataFrame:
        try:
            table = self.connection.arrow(sql)
        except Exception as error:  # chdb's and clickhouse-connect's errors share no base class
            raise (refusal(error, escaped=True) or error) from None
        return pl.from_arrow(table)

    def finished(self, result: pl.DataFrame, binding: Binding, schema: dict[str, str]) -> pl.DataFrame:
        return _enum_labels(result, {column: schema[column] for column in binding.source_by})


ENGINE = Engine("clickhouse", run)


class _Connection:
    """A chdb session or a clickhouse-connect client, as the engine uses either."""

    def __init__(self, con: Any) -> None:
        self.con = con
        self.client = hasattr(con, "query_arrow")  # clickhouse-connect's; chdb's has query(sql, format)
        if not self.client and not hasattr(con, "query"):
            raise InvalidParameterError(
                "engine='clickhouse' runs on a chdb session or a clickhouse-connect client: "
                f"pass con=chdb.session.Session() or con=clickhouse_connect.get_client(...), not {shown(con)}"
            )

    def arrow(self, sql: str) -> pa.Table:
        if self.client:
            return self.con.query_arrow(sql, use_strings=True)
        return self.con.query(sql, "ArrowTable")

    def execute(self, sql: str) -> None:
        if self.client:
            self.con.command(sql)
        else:
            self.con.query(sql)

    def insert(self, name: str, table: pa.Table) -> None:
        if self.client:
            self.con.insert_arrow(name, table)
            return
        stream = io.BytesIO()
        with pa.ipc.new_stream(stream, table.schema) as writer:
            writer.write_table(table)
        with self.con.send_insert(f"INSERT INTO {name}", "ArrowStream") as inserter:
            inserter.append(stream.getvalue())
            inserter.finish()


@contextlib.contextmanager
def _connection(con: Any) -> Iterator[_Connection]:
    """``con``, or a chdb session of the call's own (closed after it)."""
    if con is not None:
        yield _Connection(con)
        return
    try:
        from chdb.session import Session
    except ImportError:
        raise InvalidParameterError(
            "engine='clickhouse' without con= runs on chdb: pip install 'sqlmetrics[clickhouse]', "
            "or pass con=clickhouse_connect.get_client(...)"
        ) from None
    session = Session()
    try:
        yield _Connection(session)
    finally:
        session.close()


def _relation(
    connection: _Connection,
    source: Any,
    view: str,
    columns: tuple[str, ...],
    tables: list[str],
    check: Callable[[dict[str, str]], None],
) -> tuple[str, dict[str, str]]:
    """How the statement reads ``source`` (DuckDB's SQL, as composed) and its schema as
    {column: ClickHouse type}, passed by ``check`` (the schema rules). A frame's columns
    that the call reads (``columns``) are loaded into a temporary table named ``view`` and
    a suffix no user has; its other columns are named in the schema only."""
    if isinstance(source, str) and not is_path(source):
        try:
            described = connection.arrow(f"DESCRIBE TABLE {table_sql(source, 'clickhouse')}")
        except Exception as error:
            raise SourceError(f"cannot read the table {source!r} in ClickHouse: {error}".strip()) from None
        schema = dict(zip(described["name"].to_pylist(), map(_unwrapped, described["type"].to_pylist())))
        check(schema)
        return table_sql(source), schema
    if not is_frame(source):
        raise SourceError(
            f"engine='clickhouse' reads a table name or a polars or pyarrow frame, not {shown(source)} "
            "(a Parquet path: read it with pl.scan_parquet, or in ClickHouse with the file or s3 table function)"
        )
    if isinstance(source, (pl.DataFrame, pl.LazyFrame)):
        check(frame_schema(source))  # polars' types: one Arrow does not take (Int128) refused before converting
    table = _decoded(read_columns(source, columns, "clickhouse"))
    types = {field.name: _clickhouse_type(field.type) for field in table.schema}
    # a read column of another type is left out of the table; its polars type is what the
    # schema rules see, and they refuse it by name (a list score, a struct unit, ...)
    others = pl.from_arrow(table.select([column for column, kind in types.items() if kind is None]).slice(0, 0))
    schema = frame_schema(source) | {column: types[column] or str(others.schema[column]) for column in types}
    check(schema)
    _check_held(others.schema)
    name = f"{view}_{uuid.uuid4().hex}"
    _load(connection, name, table.select([column for column, kind in types.items() if kind is not None]), types, tables)
    return quote(name), schema


def _check_held(unheld: pl.Schema) -> None:
    """Refuse a read column of a type the temporary table cannot hold (``unheld``: the
    columns ``_clickhouse_type`` gives no type, that the schema rules let through: a list,
    a time of day, bytes or only NULLs as a slice or query, ...), naming it: left out of
    the table, the statement failed on ClickHouse's own error (an unknown identifier)."""
    for column, kind in unheld.items():
        raise SourceError(
            f"column {column!r} holds values of type {kind}, which engine='clickhouse' does not load from a frame "
            "(it loads numbers, booleans, strings, dates, timestamps and decimals): cast the column to one of these "
            "(e.g. .cast(pl.String)), or use engine='duckdb' or engine='polars'"
        )


def _load(connection: _Connection, name: str, table: pa.Table, types: dict[str, str | None], tables: list[str]) -> None:
    """``table`` loaded into a temporary table ``name`` (added to ``tables``, which are
    dropped after the call), each name and literal quoted as ClickHouse reads it. A column
    ClickHouse cannot hold (a timestamp's unknown time zone) is refused by name."""
    kinds = {column: f"Nullable({types[column]})" for column in table.column_names}
    definitions = ", ".join(f"{quote(column, 'clickhouse')} {kind}" for column, kind in kinds.items())
    try:
        connection.execute(f"CREATE TEMPORARY TABLE {quote(name, 'clickhouse')} ({definitions}) ENGINE = Memory")
        tables.append(name)
        connection.insert(quote(name, "clickhouse"), table)
    except Exception as error:  # chdb's and clickhouse-connect's errors share no base class
        held = ", ".join(f"{column!r} as {kind}" for column, kind in kinds.items())
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise SourceError(f"ClickHouse cannot hold the frame's columns ({held}): {reason}") from None


def _decoded(table: pa.Table) -> pa.Table:
    """``table`` with its dictionary columns (polars' categoricals) decoded."""
    for i, field in enumerate(table.schema):
        if pa.types.is_dictionary(field.type):
            table = table.set_column(i, field.name, pc.cast(table[field.name], field.type.value_type))
    return table


def _clickhouse_type(kind: pa.DataType) -> str | None:
    """The ClickHouse type a temporary table holds an arrow type in, or None for another
    type (nested, a duration, ...)."""
    if pa.types.is_boolean(kind):
        return "Bool"
    if pa.types.is_integer(kind):
        return f"{'U' if pa.types.is_unsigned_integer(kind) else ''}Int{kind.bit_width}"
    if pa.types.is_floating(kind):
        return f"Float{max(kind.bit_width, 32)}"
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return "String"
    if pa.types.is_date(kind):
        return "Date32"
    if pa.types.is_timestamp(kind):
        zone = f", {literal(kind.tz, 'clickhouse')}" if kind.tz else ""
        return f"DateTime64({_TIME_UNITS[kind.unit]}{zone})"
    if pa.types.is_decimal(kind):
        return f"Decimal({kind.precision}, {kind.scale})"
    return None


def _enum_labels(result: pl.DataFrame, slice_types: dict[str, str]) -> pl.DataFrame:
    """``result`` with each slice of an Enum type (``slice_types``: {column: ClickHouse type})
    as its labels, not the codes ClickHouse's Arrow output gives: categorical, as DuckDB gives
    an ENUM's (the rows stay in ClickHouse's order of the enum, by code)."""
    for column, type_name in slice_types.items():
        if not type_name.startswith("Enum"):
            continue
        values = exp.DataType.build(type_name, dialect="clickhouse").expressions  # 'label' = code, ...
        labels = {int(value.expression.sql()): value.this.name for value in values}
        series = result[column].replace_strict(labels, return_dtype=pl.String).cast(pl.Categorical)
        result = result.with_columns(series)
    return result


def _unwrapped(type_name: str) -> str:
    """``Nullable(Int64)`` and ``LowCardinality(Nullable(String))`` as what they hold."""
    while match := _WRAPPER.match(type_name):
        type_name = match.group(1)
    return type_name
