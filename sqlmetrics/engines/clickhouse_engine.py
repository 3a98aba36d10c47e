"""The ClickHouse engine: runs the composed statement, written in ClickHouse's dialect
(with the SETTINGS it needs: ``sqlmetrics.dialects``), and returns a polars frame.

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
from collections.abc import Iterator
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from sqlmetrics.binding import Binding
from sqlmetrics.engines.warehouse import composed_in_dialect, refusal
from sqlmetrics.errors import InvalidParameterError, SourceError, shown
from sqlmetrics.rules.schema import check_schema, check_second_schema
from sqlmetrics.sources import FRAME_VIEW, is_frame, is_path, second_view, table_sql

# A timestamp's unit as DateTime64's precision (digits of a second).
_TIME_UNITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}
# The wrappers of a column's type that do not change what it holds.
_WRAPPER = re.compile(r"^(?:Nullable|LowCardinality)\((.*)\)$")


def run(binding: Binding, source: Any, con: Any, second: Any = None) -> pl.DataFrame:
    """Compute every metric of ``binding`` over ``source`` with one ClickHouse statement."""
    with _connection(con) as connection:
        tables: list[str] = []
        try:
            from_sql, schema = _relation(connection, source, FRAME_VIEW, tables)
            check_schema(binding, schema)
            second_sql = None
            if second is not None:
                view = second_view(binding.long_scores is not None)
                second_sql, second_schema = _relation(connection, second, view, tables)
                check_second_schema(binding, second_schema, schema)
            sql = composed_in_dialect(binding, from_sql, second_sql, "clickhouse")
            try:
                table = connection.arrow(sql)
            except Exception as error:  # chdb's and clickhouse-connect's errors share no base class
                raise (refusal(error, escaped=True) or error) from None
            return pl.from_arrow(table)
        finally:
            for name in tables:
                connection.execute(f"DROP TEMPORARY TABLE IF EXISTS {name}")


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


def _relation(connection: _Connection, source: Any, view: str, tables: list[str]) -> tuple[str, dict[str, str]]:
    """How the statement reads ``source`` (a frame is loaded into a temporary table named
    ``view`` and a suffix no user has) and its schema as {column: ClickHouse type}."""
    if isinstance(source, str) and not is_path(source):
        try:
            described = connection.arrow(f"DESCRIBE TABLE {table_sql(source)}")
        except Exception as error:
            raise SourceError(f"cannot read the table {source!r} in ClickHouse: {error}".strip()) from None
        return table_sql(source), dict(
            zip(described["name"].to_pylist(), map(_unwrapped, described["type"].to_pylist()))
        )
    if not is_frame(source):
        raise SourceError(
            f"engine='clickhouse' reads a table name or a polars or pyarrow frame, not {shown(source)} "
            "(a Parquet path: read it with pl.scan_parquet, or in ClickHouse with the file or s3 table function)"
        )
    table = _arrow(source)
    types = {field.name: _clickhouse_type(field.type) for field in table.schema}
    loaded = table.select([column for column, kind in types.items() if kind is not None])
    name = table_sql(f"{view}_{uuid.uuid4().hex}")
    columns = ", ".join(f"{table_sql(column)} Nullable({types[column]})" for column in loaded.column_names)
    connection.execute(f"CREATE TEMPORARY TABLE {name} ({columns}) ENGINE = Memory")
    tables.append(name)
    connection.insert(name, loaded)
    # a column of another type is left out of the table; its polars type is what the schema
    # rules see, and they refuse it by name where the call reads it (a list, a struct, ...)
    others = pl.from_arrow(table.slice(0, 0)).schema
    return name, {column: kind or str(others[column]) for column, kind in types.items()}


def _arrow(source: Any) -> pa.Table:
    """A frame as an arrow table, dictionary columns (polars' categoricals) decoded."""
    if isinstance(source, pl.LazyFrame):
        source = source.collect()
    table = source.to_arrow() if isinstance(source, pl.DataFrame) else source
    if not isinstance(table, pa.Table):  # a pyarrow dataset (a Delta table's snapshot)
        table = table.to_table()
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
        zone = f", '{kind.tz}'" if kind.tz else ""
        return f"DateTime64({_TIME_UNITS[kind.unit]}{zone})"
    if pa.types.is_decimal(kind):
        return f"Decimal({kind.precision}, {kind.scale})"
    return None


def _unwrapped(type_name: str) -> str:
    """``Nullable(Int64)`` and ``LowCardinality(Nullable(String))`` as what they hold."""
    while match := _WRAPPER.match(type_name):
        type_name = match.group(1)
    return type_name
