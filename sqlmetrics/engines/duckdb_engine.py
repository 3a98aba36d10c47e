"""The DuckDB engine: runs the composed SQL in-process and returns a polars frame."""

from __future__ import annotations

import threading
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pads

from sqlmetrics.binding import Binding
from sqlmetrics.compose import compose
from sqlmetrics.engines.record import Engine, OwnTable, check_second_schema, check_source_schema
from sqlmetrics.engines.source_evidence import planned
from sqlmetrics.engines.spill import spill_directory
from sqlmetrics.errors import EngineOutOfMemoryError, InvalidInputError, SourceError, SqlMetricsError, shown
from sqlmetrics.registry import hooks as family_hooks
from sqlmetrics.rules.columns import ERROR_PREFIX
from sqlmetrics.rules.tables import unit_rules, with_keywords
from sqlmetrics.running import progress
from sqlmetrics.running.interrupt import interruptible
from sqlmetrics.sources import (
    FRAME_VIEW,
    BoundSql,
    is_frame,
    is_path,
    is_table_name,
    names_unreadable_files,
    polars_source,
    raise_if_files_changed,
    read_sql,
    second_view,
    table_sql,
)
from sqlmetrics.sources.table_formats import delta_dataset, opened


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
    ``sm.confusion_matrix``, ``sm.per_class``). A user's connection ``con`` is left as it
    was found (see ``_connection``)."""
    source = opened(source, binding.source_columns, delta_dataset)
    second = opened(second, binding.second_columns, delta_dataset)
    if isinstance(source, (pl.DataFrame, pl.LazyFrame)):  # before DuckDB reads it: a type it cannot read
        check_source_schema(binding, {name: str(dtype) for name, dtype in source.collect_schema().items()})
    second_name = second_view(binding.second_role)
    tables = ((FRAME_VIEW, source, binding.source_columns), (second_name, second, binding.second_columns))
    frames = {view: _without_nul_names(data, columns) for view, data, columns in tables if is_frame(data)}
    with _connection(con, (source, second)) as connection, _registered(connection, frames) as views:
        from_sql = read_sql(source, binding.source_columns, view=views.get(FRAME_VIEW, FRAME_VIEW))
        schema = _schema(connection, from_sql, source)
        check_source_schema(binding, schema)
        second_sql = None
        parameters = from_sql.parameters
        if second is not None:
            second_sql = read_sql(second, binding.second_columns, view=views.get(second_name, second_name))
            check_second_schema(binding, _schema(connection, second_sql, second), schema)
            parameters = parameters | second_sql.parameters
        statement = composer(binding, from_sql.sql, None if second_sql is None else second_sql.sql)
        try:
            result = _execute(connection, statement, parameters)
        except InvalidInputError as error:  # the refusal's text: its rule gives the keywords it names
            rules = [*(rule for hooks in family_hooks() for rule in hooks.table_rules(binding)), *unit_rules(binding)]
            raise with_keywords(error, rules) from None
        return _restore_time_zones(result, binding, source)


def evaluated(binding: Binding, source: Any, second: Any = None, *, con: Any = None, spark: Any = None) -> pl.DataFrame:
    """The engine's ``run`` (``record.Run``): ``compose``'s statement of ``binding``, planned
    with what the source tells without a scan (``source_evidence.planned``), on ``con``."""
    return run(planned(binding, source), source, con, second)


def own_table(table: OwnTable, binding: Binding, source: Any, second: Any, con: Any) -> pl.DataFrame:
    """A table of its own (``record.OwnTable``): its statement, run on ``con``."""
    return run(binding, source, con, second, composer=table.statement)


ENGINE = Engine.in_process("duckdb", evaluated, own_table, reports_progress=True)


def run_statement(sql: str, frames: dict[str, Any]) -> pl.DataFrame:
    """The rows of ``sql`` reading ``frames`` under their view names (a roll-up's states),
    on a private cursor."""
    with _connection(None, ()) as connection, _registered(connection, frames) as views:
        for view, name in views.items():
            sql = sql.replace(view, name)
        return _execute(connection, sql, {})


@contextmanager
def _connection(con: duckdb.DuckDBPyConnection | None, tables: tuple[Any, ...]) -> Iterator[duckdb.DuckDBPyConnection]:
    """Where the call runs: without ``con``, a private cursor of the process's database;
    with it, a cursor of ``con``'s own: the user's database (its tables and views), while
    ``con``'s session (its settings, registered objects and an unfinished result of
    ``execute()``) is left alone. Only a source named in ``tables`` that such a cursor
    cannot see (a temporary table or view of ``con``, an object registered on it) is read
    on ``con`` itself, which is refused while ``con`` holds an unfinished result (see
    ``_readable_on``)."""
    if con is None:
        connection = _quiet_connection()
    else:
        connection = con.cursor()
        hidden = [name for name in tables if is_table_name(name) and not _visible(connection, name)]
        if hidden:
            connection.close()
            yield _readable_on(con, hidden)
            return
    _shown_progress(connection)
    try:
        yield connection
    finally:
        connection.close()


def _visible(cursor: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether ``cursor`` reads the table ``name`` (a name its database lacks may be
    looked up among Python variables, and fail otherwise than as unknown)."""
    try:
        cursor.execute(f"DESCRIBE SELECT * FROM {table_sql(name)}").fetchall()
    except duckdb.Error:
        return False
    return True


def _readable_on(con: duckdb.DuckDBPyConnection, names: list[str]) -> duckdb.DuckDBPyConnection:
    """``con`` itself, to read the tables ``names`` that only its own session sees, unless
    reading them would discard a result of ``execute()`` the user has not fetched yet
    (DuckDB 2 refuses other work beside it, without discarding it; DuckDB 1 has no way to
    tell, and discards it)."""
    for name in names:
        try:
            con.sql(f"SELECT * FROM {table_sql(name)} LIMIT 0").fetchall()  # a relation: not execute()'s result
        except duckdb.CatalogException:
            raise _unknown_table(name) from None
        except duckdb.Error as error:
            if "unfinished result" not in str(error):
                raise SourceError(f"cannot read {name!r}: {error}") from None
            raise SourceError(
                f"{name!r} is a temporary table or view, or an object registered on the connection, which only "
                "that connection can read, and the connection has an unfinished result from execute() that "
                f"reading {name!r} would discard: fetch it (or call abort()) first, or make {name!r} a table or "
                "view of the database"
            ) from None
    return con


@contextmanager
def _registered(connection: duckdb.DuckDBPyConnection, frames: dict[str, Any]) -> Iterator[dict[str, str]]:
    """The ``frames`` (by the view name ``sm.to_sql`` gives them) registered on
    ``connection`` under names of this call alone (no object of the user's is replaced);
    unregistered when the block ends."""
    views = {view: f"{view}_{uuid.uuid4().hex}" for view in frames}
    for view, data in frames.items():
        connection.register(views[view], data)
    try:
        yield views
    finally:
        for name in views.values():
            connection.unregister(name)


def _without_nul_names(frame: Any, columns: tuple[str, ...]) -> Any:
    """``frame`` without its columns whose names hold a NUL character: DuckDB reads a frame
    through Arrow's C interface, whose names end at a NUL (polars panics, pyarrow's names
    are cut short and may then name another column). Such a column the call reads
    (``columns``) is refused."""
    if isinstance(frame, pads.Dataset):
        names = frame.schema.names
    else:
        names = frame.column_names if isinstance(frame, pa.Table) else frame.collect_schema().names()
    unreadable = [name for name in names if "\x00" in name]
    read = [name for name in unreadable if name in columns]
    if read:
        raise SqlMetricsError(
            f"column {read[0]!r} has a NUL character in its name, which DuckDB cannot read: rename it, "
            "or use engine='polars'"
        )
    if not unreadable:
        return frame
    if isinstance(frame, pads.Dataset):
        return frame.replace_schema(pa.schema([field for field in frame.schema if "\x00" not in field.name]))
    return frame.drop_columns(unreadable) if isinstance(frame, pa.Table) else frame.drop(unreadable)


def _database() -> duckdb.DuckDBPyConnection:
    """The in-memory database of calls without ``con``: opened once per process, since
    opening one costs ~30 ms, more than a whole call over a small frame. It spills to a
    directory of its own in the system's temporary directory (DuckDB's default is
    ``.tmp`` in the working directory, where a killed call once left 38 GB), removed when
    the process exits (``engines/spill.py``). Opened under a lock: calls from several threads at once had each
    opened a database and a spill directory of their own, and the process kept one of
    each, not always of the same database."""
    with _OPENING:
        return _opened_database()


_OPENING = threading.Lock()


@cache
def _opened_database() -> duckdb.DuckDBPyConnection:
    return duckdb.connect(config={"temp_directory": spill_directory()})


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


def _shown_progress(cursor: duckdb.DuckDBPyConnection) -> None:
    """When a progress line shows (``progress.showing``: the command line's, a long
    bootstrap's), let it read the share done of the statement ``cursor`` runs: the cursor
    (a session of its own, not the user's connection) tracks it without drawing DuckDB's
    own bar, which would go to stdout, among the results."""
    line = progress.showing()
    if line is None:
        return
    cursor.execute("SET enable_progress_bar = true")
    cursor.execute("SET enable_progress_bar_print = false")
    line.follow(lambda: _share_done(cursor))


def _share_done(cursor: duckdb.DuckDBPyConnection) -> float:
    """The share of the statement ``cursor`` runs done, in percent; -1 when none runs."""
    try:
        return cursor.query_progress()
    except duckdb.Error:  # the cursor closed as its call ended
        return -1.0


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


def _schema(connection: duckdb.DuckDBPyConnection, from_sql: BoundSql, source: Any) -> dict[str, str]:
    try:
        described = connection.execute(f"DESCRIBE SELECT * FROM {from_sql.sql}", from_sql.parameters or None).fetchall()
    except duckdb.Error as error:
        if is_table_name(source):
            raise _unknown_table(source) from None
        raise_if_files_changed(source, error)
        raise SourceError(f"cannot read {shown(source)}: {error}") from None
    return {name: str(kind) for name, kind, *_ in described}


def _unknown_table(name: str) -> SourceError:
    return SourceError(f"no table or view named {name!r} in the DuckDB connection (pass con=... or a Parquet path)")


def _execute(connection: duckdb.DuckDBPyConnection, sql: str, parameters: dict[str, Any]) -> pl.DataFrame:
    """The rows of ``sql``, its named parameters bound to ``parameters``; Ctrl-C interrupts
    the query and raises KeyboardInterrupt at once."""
    try:
        return interruptible(lambda: _fetched(connection.execute(sql, parameters or None)), stop=connection.interrupt)
    except KeyboardInterrupt:
        _abandon(connection)
        raise
    except duckdb.Error as error:
        _abandon(connection)
        text = str(error)
        if isinstance(error, duckdb.InvalidInputException) and ERROR_PREFIX in text:
            raise InvalidInputError(text.split(ERROR_PREFIX, 1)[1].strip()) from None
        if isinstance(error, duckdb.OutOfMemoryException):
            raise EngineOutOfMemoryError(_out_of_memory(connection, error)) from None
        if isinstance(error, duckdb.IOException) and "No space left on device" in text:
            raise EngineOutOfMemoryError(_out_of_disk(connection, error)) from None
        raise


def _abandon(connection: duckdb.DuckDBPyConnection) -> None:
    """Drop a result that failed while being fetched: DuckDB 2 keeps it open on the
    connection, refusing any other work there until it is aborted (DuckDB 1 has no
    ``abort`` and keeps nothing)."""
    abort = getattr(connection, "abort", None)
    if abort is not None:
        abort()


def _out_of_disk(connection: duckdb.DuckDBPyConnection, error: Exception) -> str:
    """Which disk filled up while DuckDB spilled, and how to point it at another."""
    directory = connection.execute("SELECT current_setting('temp_directory')").fetchall()[0][0]
    return (
        f"DuckDB's disk filled up while spilling to {directory or 'its temporary directory'!r}: "
        f"{str(error).splitlines()[0]}. Free space there, or pass a connection with room and a cap as con=: "
        "con.execute(\"SET temp_directory = '/big/disk'\"), con.execute(\"SET max_temp_directory_size = '50GB'\")."
    )


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
