"""The PostgreSQL engine: runs the composed statement, written in PostgreSQL's dialect,
on a psycopg connection and returns a polars frame.

``source`` (and the judgments or long class scores) is the name of a table or view the
connection can read (``"schema.table"``). psycopg is an optional dependency
(``pip install 'sqlmetrics[postgres]'``); nothing here imports it: the connection passed
in brings it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.engines.record import Engine
from sqlmetrics.engines.warehouse import Warehouse, refusal, relation, run_on
from sqlmetrics.errors import InvalidParameterError, SourceError, shown
from sqlmetrics.sources import is_path, table_sql

# PostgreSQL's type names (pg_type.typname) as polars types, for an empty result's columns.
_TYPES = {"int2": pl.Int64, "int4": pl.Int64, "int8": pl.Int64, "float4": pl.Float64, "float8": pl.Float64}
_TYPES |= {"numeric": pl.Float64, "text": pl.String, "varchar": pl.String, "bool": pl.Boolean}


def run(binding: Binding, source: Any, second: Any = None, *, con: Any = None, spark: Any = None) -> pl.DataFrame:
    """Compute every metric of ``binding`` over the table ``source`` with one statement, on
    the psycopg connection ``con`` (``record.Run``)."""
    return run_on(_connected(con), binding, source, second)


@contextlib.contextmanager
def _connected(con: Any) -> Iterator[_Postgres]:
    """The call on the connection ``con`` (it makes no temporary table)."""
    if con is None:
        raise InvalidParameterError("engine='postgres' runs on a connection: pass con=psycopg.connect(...)")
    yield _Postgres(con)


class _Postgres(Warehouse):
    """A call on a psycopg connection, which reads the source by name."""

    dialect = "postgres"

    def relation(
        self, source: Any, view: str, columns: tuple[str, ...], check: Callable[[dict[str, str]], None]
    ) -> tuple[str, dict[str, str]]:
        schema = _schema(self.connection, source)
        check(schema)
        return table_sql(source), schema

    def rows(self, sql: str) -> pl.DataFrame:
        return rows_of(self.connection, sql)


ENGINE = Engine("postgres", run)


def rows_of(connection: Any, sql: str) -> pl.DataFrame:
    """The rows of the statement ``sql`` (written for PostgreSQL), run on ``connection`` in
    a savepoint: numeric results (PostgreSQL's sums of integers) as doubles, as DuckDB
    gives them; its refusal of bad data raised as InvalidInputError."""
    names, kinds, rows = _fetch(connection, sql)
    rows = [tuple(float(v) if isinstance(v, Decimal) else v for v in row) for row in rows]
    return pl.DataFrame(rows, schema={name: _TYPES.get(kind) for name, kind in zip(names, kinds)}, orient="row")


def _schema(connection: Any, source: Any) -> dict[str, str]:
    """{column: PostgreSQL type name} of the table ``source``."""
    if not isinstance(source, str) or is_path(source):
        raise SourceError(
            f"engine='postgres' reads a table or view of the connection: pass its name, not {shown(source)}"
        )
    try:
        names, kinds, _ = _fetch(connection, relation(source, "postgres") + " LIMIT 0")
    except Exception as error:
        raise SourceError(f"cannot read the table {source!r} in PostgreSQL: {error}".strip()) from None
    return dict(zip(names, kinds))


def _fetch(connection: Any, sql: str) -> tuple[list[str], list[str], list[tuple]]:
    """Run ``sql`` in a transaction of its own (a savepoint, inside the caller's): its
    column names, their type names and its rows. Its refusal of bad data is raised as
    InvalidInputError."""
    try:
        with connection.transaction(), connection.cursor() as cursor:
            cursor.execute(sql, prepare=False)  # a table may be replaced between calls: never a cached plan
            names = [column.name for column in cursor.description]
            kinds = [_type_name(connection, column.type_code) for column in cursor.description]
            return names, kinds, cursor.fetchall()
    except Exception as error:
        raise (refusal(error) or error) from None


def _type_name(connection: Any, oid: int) -> str:
    """The type's name; an array's is its element's with ``[]`` (psycopg files an array
    type under its element type's info)."""
    info = connection.adapters.types.get(oid)
    if info is None:
        return str(oid)
    return f"{info.name}[]" if oid == info.array_oid else info.name
