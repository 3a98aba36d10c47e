"""Writing a command's table (a terminal's table, CSV, JSON, Parquet) while a progress
line shows a person at a terminal that it runs, and the warnings of a table that used
no row."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from sqlmetrics.cli.messages import PROG, UsageError
from sqlmetrics.errors import Counted
from sqlmetrics.running.progress import on_terminal
from sqlmetrics.sources.parquet_files import row_count

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
    """``function(*given, engine=--engine, **kwargs)`` (without ``engine`` for a command
    that has no --engine; with a progress line for a person waiting at a terminal)
    written as --format to --output, ``shown(result)`` if given; returns the table."""
    fmt = output_format(args.format, args.output)
    engine = {"engine": args.engine} if "engine" in args else {}
    with on_terminal(f"computing over {args.source}", shown=not args.quiet):  # DuckDB's engine tells its share done
        result = function(*given, **engine, **kwargs)
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
        f"all {Counted('row was', 'rows were').of(excluded, ',')} excluded (each has a NULL in a bound column)"
        if excluded
        else "the source has no rows"
    )
    sys.stderr.write(f"{PROG}: warning: {reason}: {consequence}\n")
