"""What a call reads: Parquet paths and globs, polars and pyarrow frames, DuckDB tables."""

from __future__ import annotations

import functools
import glob
import inspect
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import polars as pl
import pyarrow as pa

from sqlmetrics import templates
from sqlmetrics.errors import SourceError
from sqlmetrics.parquet_files import GLOB_CHARS, ParquetFiles, raise_unreadable_file, read_parquet_files
from sqlmetrics.sql_names import quote

# The names under which in-memory frames are visible to the composed SQL.
FRAME_VIEW = "sqlmetrics_source"
JUDGMENTS_VIEW = "sqlmetrics_judgments"
CLASS_SCORES_VIEW = "sqlmetrics_class_scores"


def second_view(long_scores: bool) -> str:
    """The view an in-memory second table is read through: long class scores or judgments."""
    return CLASS_SCORES_VIEW if long_scores else JUDGMENTS_VIEW


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
        or any(ch in source for ch in GLOB_CHARS)
        or os.sep in source
    )


def is_table_name(source: Any) -> bool:
    """A string that names a table or view (of a DuckDB connection), not a path."""
    return isinstance(source, str) and not is_path(source)


def table_sql(name: str) -> str:
    """A possibly dotted table name (``catalog.schema.table``), each part quoted."""
    return ".".join(quote(part) for part in name.split("."))


def source_sql(source: Any, *, columns: Collection[str] | None = None, view: str = FRAME_VIEW) -> str:
    """The FROM expression the composed SQL reads ``source`` through (a frame: ``view``).

    A Parquet path is read with ``can_have_nan = true``: DuckDB otherwise trusts the
    files' min/max statistics, which leave NaN out, and folds ``isnan`` to false. With
    ``columns`` (the columns the call reads) the files are listed and checked first
    (``sqlmetrics.parquet_files``), and files whose schemas differ are read by name with
    ``union_by_name = true``; without, the path is rendered as given (``sm.to_sql``)."""
    if is_frame(source):
        return view
    if is_path(source):
        if columns is None:
            return _read_parquet_sql(str(source), union_by_name=False)
        files = read_parquet_files(source, columns)
        literal_paths = tuple(map(glob.escape, files.paths))  # DuckDB globs every path it is given
        paths = literal_paths[0] if len(literal_paths) == 1 else literal_paths
        return _read_parquet_sql(paths, union_by_name=files.common_schema is not None)
    if isinstance(source, str):
        return table_sql(source)
    raise _unsupported(source)


def _read_parquet_sql(paths: str | tuple[str, ...], union_by_name: bool) -> str:
    listed = templates.literal(paths) if isinstance(paths, str) else f"[{', '.join(map(templates.literal, paths))}]"
    by_name = ", union_by_name = true" if union_by_name else ""
    return f"read_parquet({listed}{by_name}, can_have_nan = true)"


def polars_source(source: Any, columns: Collection[str]) -> pl.LazyFrame:
    """``source`` as a LazyFrame for the polars engine (Parquet is scanned, not read,
    after checking the files for the ``columns`` the call reads, as ``source_sql``)."""
    if isinstance(source, pl.LazyFrame):
        return source
    if isinstance(source, pl.DataFrame):
        return source.lazy()
    if isinstance(source, pa.Table):
        return pl.from_arrow(source).lazy()
    if is_path(source):
        return _scan_parquet(read_parquet_files(source, columns))
    if isinstance(source, str):
        raise SourceError(
            f"engine='polars' reads Parquet paths and frames; {source!r} is neither "
            "(for a table in a DuckDB connection use engine='duckdb' with con=...)"
        )
    raise _unsupported(source)


# Integers to wider integers or to floats, floats to wider floats: the casts the checked
# common schema needs (read_parquet_files refuses any that would change a value).
_LOSSLESS_CASTS = pl.ScanCastOptions(
    integer_cast=["upcast", "allow-float"], float_cast="upcast", categorical_to_string="allow"
)


def _scan_parquet(files: ParquetFiles) -> pl.LazyFrame:
    """The files as one LazyFrame (their names are not globs: a file may be named ``[x]``);
    files of several schemas under their common schema."""
    if files.common_schema is None:
        return pl.scan_parquet(list(files.paths), glob=False)
    return pl.scan_parquet(
        list(files.paths),
        glob=False,
        schema=pl.from_arrow(files.common_schema.empty_table()).schema,
        missing_columns="insert",
        extra_columns="ignore",
        cast_options=_LOSSLESS_CASTS,
    )


# What the engines raise when a file's pages cannot be read.
_ENGINE_READ_ERRORS = (duckdb.Error, pl.exceptions.PolarsError, OSError)
Engine = TypeVar("Engine", bound=Callable[..., pl.DataFrame])


def names_unreadable_files(engine: Engine) -> Engine:
    """An engine's entry ``(binding, source, ..., second=None)`` whose failure to read the
    source's or ``second``'s Parquet files is a SourceError naming the file (see
    ``raise_unreadable_file``; any other failure is raised as it is)."""
    signature = inspect.signature(engine)

    @functools.wraps(engine)
    def run(*args: Any, **kwargs: Any) -> pl.DataFrame:
        try:
            return engine(*args, **kwargs)
        except _ENGINE_READ_ERRORS:
            arguments = signature.bind(*args, **kwargs).arguments
            binding = arguments["binding"]
            tables = ((arguments["source"], binding.source_columns), (arguments.get("second"), binding.second_columns))
            for table, columns in tables:
                if is_path(table):
                    raise_unreadable_file(table, columns)
            raise

    return run  # type: ignore[return-value]


def _unsupported(source: Any) -> SourceError:
    return SourceError(
        f"cannot read a {type(source).__name__}: pass a Parquet path or glob, a polars "
        "DataFrame or LazyFrame, a pyarrow Table, or a table name with con=<duckdb connection>"
    )
