"""The DuckDB engine: runs the composed SQL in-process and returns a polars frame."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

import duckdb
import polars as pl

from sqlmetrics.binding import Binding, check_schema, check_second_schema
from sqlmetrics.checks import ERROR_PREFIX
from sqlmetrics.compose import compose
from sqlmetrics.errors import EngineOutOfMemoryError, InvalidInputError, SourceError, shown
from sqlmetrics.sources import (
    FRAME_VIEW,
    is_frame,
    is_path,
    names_unreadable_files,
    polars_source,
    second_view,
    source_sql,
)


@names_unreadable_files
def run(
    binding: Binding,
    source: Any,
    con: duckdb.DuckDBPyConnection | None,
    second: Any = None,
    composer: Callable[[Binding, str, str | None], str] = compose,
) -> pl.DataFrame:
    """Compute every metric of ``binding`` over ``source`` (and ``second``: the judgments
    of a run, or long class scores) with one SQL statement, written by ``composer``:
    ``compose``, or one that ends with its own final SELECT (a curve,
    ``sm.confusion_matrix``, ``sm.per_class``)."""
    if isinstance(source, (pl.DataFrame, pl.LazyFrame)):  # before DuckDB reads it: a type it cannot read
        check_schema(binding, {name: str(dtype) for name, dtype in source.collect_schema().items()})
    connection = con if con is not None else _quiet_connection()
    second_name = second_view(binding.long_scores is not None)
    frames = {view: data for view, data in ((FRAME_VIEW, source), (second_name, second)) if is_frame(data)}
    for view, data in frames.items():
        connection.register(view, data)
    try:
        from_sql = source_sql(source, columns=binding.source_columns)
        schema = _schema(connection, from_sql, source)
        check_schema(binding, schema)
        second_sql = None
        if second is not None:
            second_sql = source_sql(second, columns=binding.second_columns, view=second_name)
            check_second_schema(binding, _schema(connection, second_sql, second), schema)
        result = _execute(connection, composer(binding, from_sql, second_sql))
        return _restore_time_zones(result, binding, source)
    finally:
        for view in frames:
            connection.unregister(view)
        if con is None:
            connection.close()


@cache
def _database() -> duckdb.DuckDBPyConnection:
    """The in-memory database of calls without ``con``: opened once per process, since
    opening one costs ~30 ms, more than a whole call over a small frame."""
    return duckdb.connect()


def _restore_time_zones(result: pl.DataFrame, binding: Binding, source: Any) -> pl.DataFrame:
    """The slices of a time-zone-aware timestamp column in the column's own zone, as the
    polars engine returns them (DuckDB returns its TIMESTAMPTZ in UTC). A DuckDB table
    has no zone of its own: its slices stay in UTC."""
    by = binding.by
    if not any(isinstance(result.schema.get(column), pl.Datetime) for column in by) or not (
        is_frame(source) or is_path(source)
    ):
        return result
    schema = polars_source(source, binding.source_columns).collect_schema()
    zoned = {
        column: schema[column].time_zone
        for column in by
        if isinstance(schema.get(column), pl.Datetime) and schema[column].time_zone is not None
    }
    return result.with_columns(pl.col(column).dt.convert_time_zone(zone) for column, zone in zoned.items())


def _quiet_connection() -> duckdb.DuckDBPyConnection:
    """A private connection to that database (its own views of the call's frames; safe
    in other threads) that prints no progress bar (the CLI asks for one)."""
    connection = _database().cursor()
    connection.execute("SET enable_progress_bar = false")
    return connection


def _fetched(result: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """An executed statement's rows as a polars frame. Statements run through ``execute``
    rather than ``sql``: DuckDB 2's ``sql`` builds a relation, first tokenizing the text
    in Python (~10 ms for a composed statement, a third of a small call). DuckDB 1 has
    ``pl()`` on the result; DuckDB 2 warns that Arrow output from ``execute`` copies the
    rows, which for a result of one row per slice costs nothing worth a warning."""
    if hasattr(result, "pl"):
        return result.pl()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return pl.from_arrow(result.to_arrow_table())


def _schema(connection: duckdb.DuckDBPyConnection, from_sql: str, source: Any) -> dict[str, str]:
    try:
        described = connection.execute(f"DESCRIBE SELECT * FROM {from_sql}").fetchall()
    except duckdb.Error as error:
        if isinstance(source, str) and from_sql.startswith('"'):
            raise SourceError(
                f"no table or view named {source!r} in the DuckDB connection (pass con=... or a Parquet path)"
            ) from None
        raise SourceError(f"cannot read {shown(source)}: {error}") from None
    return {name: str(kind) for name, kind, *_ in described}


def _execute(connection: duckdb.DuckDBPyConnection, sql: str) -> pl.DataFrame:
    try:
        return _fetched(connection.execute(sql))
    except duckdb.Error as error:
        _abandon(connection)
        text = str(error)
        if isinstance(error, duckdb.InvalidInputException) and ERROR_PREFIX in text:
            raise InvalidInputError(text.split(ERROR_PREFIX, 1)[1].strip()) from None
        if isinstance(error, duckdb.OutOfMemoryException):
            raise EngineOutOfMemoryError(_out_of_memory(connection, error)) from None
        raise


def _abandon(connection: duckdb.DuckDBPyConnection) -> None:
    """Drop a result that failed while being fetched: DuckDB 2 keeps it open on the
    connection, refusing any other work there until it is aborted (DuckDB 1 has no
    ``abort`` and keeps nothing)."""
    abort = getattr(connection, "abort", None)
    if abort is not None:
        abort()


def _out_of_memory(connection: duckdb.DuckDBPyConnection, error: Exception) -> str:
    """What DuckDB ran out of, under which limits, and how to give it more."""
    limits = connection.execute(
        "SELECT current_setting('memory_limit'), current_setting('temp_directory'), "
        "current_setting('max_temp_directory_size'), current_setting('threads')"
    ).fetchall()  # all: a result left unfinished would hold the connection
    memory, directory, spill, threads = limits[0]
    return (
        f"DuckDB ran out of memory: {str(error).splitlines()[0]} "
        f"(memory_limit {memory}, {threads} threads, spilling to {directory or 'no directory'!r} "
        f"up to {spill}). Give it more on a connection and pass it as con=: "
        "con.execute(\"SET memory_limit = '8GB'\"), a temp_directory on a disk with room "
        "(SET temp_directory, max_temp_directory_size), or fewer threads (SET threads = 1)."
    )
