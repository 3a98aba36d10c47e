"""Writing a command's table (a terminal's table, CSV, JSON, Parquet) while a progress
line shows a person at a terminal that it runs, and the warnings of a table that used
no row."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from sqlmetrics.cli.messages import PROG, UsageError
from sqlmetrics.engines.duckdb_engine import spill_directory
from sqlmetrics.parquet_files import row_count
from sqlmetrics.progress import Progress

FORMATS = ("table", "csv", "json", "parquet")
TABLE_CONFIG = {
    "tbl_cols": -1,
    "tbl_rows": -1,
    "tbl_width_chars": -1,
    "fmt_str_lengths": 1000,
    "float_precision": 6,
    "tbl_hide_column_data_types": True,
    "tbl_hide_dataframe_shape": True,
}


def compute_and_write(
    args: argparse.Namespace,
    function: Callable[..., pl.DataFrame],
    *given: Any,
    shown: Callable[[pl.DataFrame], pl.DataFrame] | None = None,
    **kwargs: Any,
) -> pl.DataFrame:
    """``function(*given, engine=--engine, **kwargs)`` (with a progress line for a person
    waiting at a terminal) written as --format to --output, ``shown(result)`` if given;
    returns the table."""
    fmt = output_format(args.format, args.output)
    show = not args.quiet and sys.stderr.isatty()
    what = f"computing over {args.source}"
    if args.engine == "duckdb":
        with duckdb_connection() as con, progress(show, what, con.query_progress):
            result = function(*given, engine="duckdb", con=con, **kwargs)
    else:
        with progress(show, what):
            result = function(*given, engine=args.engine, **kwargs)
    write_result(result if shown is None else shown(result), fmt, args.output)
    return result


# The format an --output file's extension names; any other extension is written as given.
EXTENSION_FORMATS = {".csv": "csv", ".json": "json", ".parquet": "parquet", ".pq": "parquet"}


def output_format(given: str | None, output: str | None) -> str:
    """The format to write: --format, else the one --output's extension names, else
    ``table``. A --format that contradicts the extension is refused rather than writing,
    say, a text table into ``result.parquet``."""
    implied = EXTENSION_FORMATS.get(Path(output).suffix.lower()) if output is not None else None
    if given is not None and implied is not None and given != implied:
        raise UsageError(f"--format {given} contradicts --output {output} (a {implied} file): drop one of them")
    fmt = given or implied or "table"
    if fmt == "parquet" and output is None:
        raise UsageError("--format parquet writes a binary file: pass --output PATH")
    return fmt


def duckdb_connection() -> ProgressConnection:
    """A connection that tracks its progress (for ``Progress``) without drawing DuckDB's
    own bar, which would go to stdout, among the results; it spills where the library's
    own database does (a private directory removed at exit), not to ``.tmp`` in the
    working directory."""
    return ProgressConnection(duckdb.connect(config={"temp_directory": spill_directory()}))


class ProgressConnection:
    """A DuckDB connection whose cursors track their progress. sqlmetrics runs a call's
    statements on a cursor of the connection it is given (``con.cursor()``, leaving the
    connection itself as it was), and progress is a setting of each cursor's own session:
    every cursor made here tracks it, without drawing DuckDB's bar, and
    ``query_progress`` is the latest cursor's. Anything else is the connection's."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self._connection = connection
        self._cursor: duckdb.DuckDBPyConnection | None = None

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cursor = self._connection.cursor()
        cursor.execute("SET enable_progress_bar = true")
        cursor.execute("SET enable_progress_bar_print = false")
        self._cursor = cursor
        return cursor

    def queryprogress(self) -> float:
        """The share of the running statement done, in percent; -1 when none runs."""
        try:
            return self._cursor.queryprogress() if self._cursor is not None else -1.0
        except duckdb.Error:  # the cursor closed as its call ended
            return -1.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)

    def __enter__(self) -> ProgressConnection:
        return self

    def __exit__(self, *_: object) -> None:
        self._connection.close()


def progress(show: bool, what: str, percent: Callable[[], float] | None = None) -> AbstractContextManager:
    """A progress line on stderr while the block runs, when ``show``; else nothing."""
    return Progress(sys.stderr, what, percent) if show else nullcontext()


def to_terminal(args: argparse.Namespace) -> bool:
    """Whether the result is a table on a person's screen (no --output, no other format)."""
    return args.output is None and args.format in (None, "table") and sys.stdout.isatty()


def write_result(result: pl.DataFrame, fmt: str, output: str | None) -> None:
    """Write ``result`` as ``fmt`` to ``output``, or to stdout when it is None."""
    if fmt == "parquet":
        result.write_parquet(output)
        return
    text = render(result, fmt)
    if output is None:
        sys.stdout.write(text)
    else:
        Path(output).write_text(text, encoding="utf-8")


def render(result: pl.DataFrame, fmt: str) -> str:
    """``result`` as text: a readable table, CSV, or a JSON array of row objects."""
    if fmt == "csv":
        return result.write_csv()
    if fmt == "json":
        return result.write_json() + "\n"
    with pl.Config(**TABLE_CONFIG):
        return f"{result}\n"


def warn_if_no_rows_used(result: pl.DataFrame) -> None:
    """Say on stderr when no row was used, so a table of NULLs is not mistaken for results."""
    if result["n_rows"].sum() == 0:
        warn_no_rows(result["n_excluded"].sum(), "every metric is NULL")


def warn_if_empty(result: pl.DataFrame, source: str) -> None:
    """Say on stderr why a table (curve, confusion matrix, per-class values) came out
    empty: the source has no rows, or every row was excluded. The tables carry no row
    counts, so the source's are read from its Parquet footers, only then."""
    if result.height == 0:
        warn_no_rows(row_count(source), "the table is empty")


def warn_no_rows(excluded: int, consequence: str) -> None:
    reason = (
        f"all {excluded:,} rows were excluded (each has a NULL in a bound column)"
        if excluded
        else "the source has no rows"
    )
    sys.stderr.write(f"{PROG}: warning: {reason}: {consequence}\n")
