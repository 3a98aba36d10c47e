"""What a call reads: Parquet paths and globs, polars and pyarrow frames, DuckDB tables."""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from sqlmetrics import templates
from sqlmetrics.compose import quote
from sqlmetrics.errors import SourceError

# The names under which in-memory frames are visible to the composed SQL.
FRAME_VIEW = "sqlmetrics_source"
JUDGMENTS_VIEW = "sqlmetrics_judgments"
CLASS_SCORES_VIEW = "sqlmetrics_class_scores"


def second_view(long_scores: bool) -> str:
    """The view an in-memory second table is read through: long class scores or judgments."""
    return CLASS_SCORES_VIEW if long_scores else JUDGMENTS_VIEW


_GLOB_CHARS = ("*", "?", "[")
_FRAMES = (pl.DataFrame, pl.LazyFrame, pa.Table)


def is_frame(source: Any) -> bool:
    return isinstance(source, _FRAMES)


def is_path(source: Any) -> bool:
    """A Path, or a string that reads as a file path or glob rather than a table name."""
    if isinstance(source, Path):
        return True
    if not isinstance(source, str):
        return False
    return (
        os.path.exists(source)
        or source.endswith((".parquet", ".pq"))
        or any(ch in source for ch in _GLOB_CHARS)
        or os.sep in source
    )


def parquet_pattern(source: str | Path) -> str:
    """The path or glob to scan, after checking that it names at least one file.

    A directory stands for every Parquet file below it.
    """
    text = str(source)
    if os.path.isdir(text):
        text = os.path.join(text, "**", "*.parquet")
    if any(ch in text for ch in _GLOB_CHARS):
        if not glob.glob(text, recursive=True):
            raise SourceError(f"no files match {str(source)!r}")
    elif not os.path.exists(text):
        raise SourceError(f"file not found: {text!r}")
    return text


def table_sql(name: str) -> str:
    """A possibly dotted table name (``catalog.schema.table``), each part quoted."""
    return ".".join(quote(part) for part in name.split("."))


def source_sql(source: Any, *, check_paths: bool = True, view: str = FRAME_VIEW) -> str:
    """The FROM expression the composed SQL reads ``source`` through (a frame: ``view``)."""
    if is_frame(source):
        return view
    if is_path(source):
        pattern = parquet_pattern(source) if check_paths else str(source)
        return f"read_parquet({templates.literal(pattern)})"
    if isinstance(source, str):
        return table_sql(source)
    raise _unsupported(source)


def polars_source(source: Any) -> pl.LazyFrame:
    """``source`` as a LazyFrame for the polars engine (Parquet is scanned, not read)."""
    if isinstance(source, pl.LazyFrame):
        return source
    if isinstance(source, pl.DataFrame):
        return source.lazy()
    if isinstance(source, pa.Table):
        return pl.from_arrow(source).lazy()
    if is_path(source):
        return pl.scan_parquet(parquet_pattern(source))
    if isinstance(source, str):
        raise SourceError(
            f"engine='polars' reads Parquet paths and frames; {source!r} is neither "
            "(for a table in a DuckDB connection use engine='duckdb' with con=...)"
        )
    raise _unsupported(source)


def _unsupported(source: Any) -> SourceError:
    return SourceError(
        f"cannot read a {type(source).__name__}: pass a Parquet path or glob, a polars "
        "DataFrame or LazyFrame, a pyarrow Table, or a table name with con=<duckdb connection>"
    )
