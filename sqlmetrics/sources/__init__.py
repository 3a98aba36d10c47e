"""What a call reads: Parquet paths and globs, polars and pyarrow frames, DuckDB tables."""

from __future__ import annotations

import functools
import glob
import inspect
import os
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pads

from sqlmetrics.errors import SourceError
from sqlmetrics.sources.parquet_files import GLOB_CHARS, ParquetFiles, raise_unreadable_file, read_parquet_files
from sqlmetrics.sources.partitions import FILE_COLUMN
from sqlmetrics.sources.table_formats import delta_frame, delta_sql, is_delta, opened
from sqlmetrics.sqltext import templates

# The names under which in-memory frames are visible to the composed SQL.
FRAME_VIEW = "sqlmetrics_source"


# The kind of frame a ``sqlmetrics.polars`` frame function is given, and answers in.
Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)


def in_kind(result: pl.LazyFrame, data: pl.DataFrame | pl.LazyFrame) -> Any:
    """``result`` as the kind of frame ``data`` is, the rule of every ``sqlmetrics.polars``
    frame function: a LazyFrame for a LazyFrame (computed when collected), a DataFrame
    (collected now) for a DataFrame."""
    return result.collect() if isinstance(data, pl.DataFrame) else result


def slice_names(by: Sequence[str]) -> list[str]:
    """The canonical names a frame function gives the user's slice columns ``by`` while it
    computes (``slice_1``, ..., as ``Binding.slices``): a user's column may be named as
    one its steps make (``n``, ``w``, ``class``, ``auc``); it names them back at the end."""
    return [f"slice_{i}" for i in range(1, len(by) + 1)]


def second_view(role: str) -> str:
    """The view an in-memory second table is read through, named for the role it is bound
    to (``Binding.second_role``: the judgments, or long class scores)."""
    return f"sqlmetrics_{role}"


_FRAMES = (pl.DataFrame, pl.LazyFrame, pa.Table, pads.Dataset)  # a dataset: a Delta table's snapshot


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


def table_sql(name: str, dialect: str = "duckdb") -> str:
    """A possibly dotted table name (``catalog.schema.table``), each part quoted for
    ``dialect``."""
    return ".".join(templates.quote(part, dialect) for part in name.split("."))


def source_sql(source: Any, *, view: str = FRAME_VIEW) -> str:
    """The FROM expression ``sm.to_sql`` shows for ``source`` (a frame: ``view``; a
    Parquet path as given, read with ``can_have_nan = true``, see ``read_sql``)."""
    if is_frame(source):
        return view
    if is_delta(source):
        return delta_sql(str(source))
    if is_path(source):
        return f"read_parquet({templates.literal(str(source))}, can_have_nan = true)"
    if isinstance(source, str):
        return table_sql(source)
    raise _unsupported(source)


@dataclass(frozen=True)
class BoundSql:
    """SQL reading a source, and the values of the named parameters (``$name``) it holds."""

    sql: str
    parameters: dict[str, Any] = field(default_factory=dict)


def read_sql(source: Any, columns: Collection[str], view: str = FRAME_VIEW) -> BoundSql:
    """The FROM expression the DuckDB engine reads ``source`` through (a frame: ``view``).

    A Parquet path's files are listed and checked first (``sqlmetrics.sources.parquet_files``), and
    bound as parameters named after ``view`` (a path is never pasted into the statement).
    They are read with ``can_have_nan = true`` (DuckDB otherwise trusts the files' min/max
    statistics, which leave NaN out, and folds ``isnan`` to false), by name with
    ``union_by_name = true`` when their schemas differ, and without DuckDB's own reading
    of ``key=value`` folders: the partition columns are joined to each file's rows by its
    path (``sqlmetrics.sources.partitions``)."""
    if not is_path(source):
        return BoundSql(source_sql(source, view=view))
    files = read_parquet_files(source, columns)
    parameters: dict[str, Any] = {f"{view}_paths": list(map(glob.escape, files.paths))}  # DuckDB globs every path
    options = ["hive_partitioning = false"]
    options += ["union_by_name = true"] if files.common_schema is not None else []
    found = files.partitions
    if found is None:
        return BoundSql(_read_parquet_sql(view, options), parameters)
    options.append(f"filename = {templates.literal(FILE_COLUMN)}")
    values = []
    for i, key in enumerate((FILE_COLUMN, *found.keys)):
        parameters[f"{view}_partition_{i}"] = found.table.column(key).to_pylist()
        kind = _DUCKDB_TYPES[found.table.schema.field(key).type]
        values.append(f"CAST(unnest(${view}_partition_{i}) AS {kind}) AS {templates.quote(key)}")
    excluded = ", ".join(templates.quote(name) for name in (FILE_COLUMN, *found.in_files))
    file = templates.quote(FILE_COLUMN)
    sql = (
        f"(SELECT rows.* EXCLUDE ({excluded}), {', '.join(f'folders.{templates.quote(key)}' for key in found.keys)}\n"
        f"FROM {_read_parquet_sql(view, options)} AS rows\n"
        f"JOIN (SELECT {', '.join(values)}) AS folders ON rows.{file} = folders.{file})"
    )
    return BoundSql(sql, parameters)


# The DuckDB type of each type a partition key may have (sqlmetrics.sources.partitions).
_DUCKDB_TYPES = {
    pa.int64(): "BIGINT",
    pa.float64(): "DOUBLE",
    pa.date32(): "DATE",
    pa.timestamp("us"): "TIMESTAMP",
    pa.string(): "VARCHAR",
}


def _read_parquet_sql(view: str, options: list[str]) -> str:
    return f"read_parquet(${view}_paths, {', '.join(options)}, can_have_nan = true)"


def polars_source(source: Any, columns: Collection[str]) -> pl.LazyFrame:
    """``source`` as a LazyFrame for the polars engine (Parquet is scanned, not read,
    after checking the files for the ``columns`` the call reads, as ``source_sql``; a lake
    table through its library, ``table_formats``)."""
    source = opened(source, columns, delta_frame)
    if isinstance(source, pads.Dataset):
        return pl.scan_pyarrow_dataset(source)
    if isinstance(source, pl.LazyFrame):
        return source
    if isinstance(source, pl.DataFrame):
        return source.lazy()
    if isinstance(source, pa.Table):
        return arrow_frame(source).lazy()
    if is_path(source):
        return _scan_parquet(read_parquet_files(source, columns))
    if isinstance(source, str):
        raise SourceError(
            f"engine='polars' reads Parquet paths and frames; {source!r} is neither "
            "(for a table in a DuckDB connection use engine='duckdb' with con=...)"
        )
    raise _unsupported(source)


def arrow_frame(table: pa.Table) -> pl.DataFrame:
    """A pyarrow Table as a polars frame, whatever its column names: polars reads Arrow
    through its C interface, whose names end at a NUL character, so such names are
    restored after."""
    if not any("\x00" in name for name in table.column_names):
        return pl.from_arrow(table)  # type: ignore[return-value]
    stand_ins = [f"column_{i}" for i in range(table.num_columns)]
    frame = pl.from_arrow(table.rename_columns(stand_ins))
    return frame.rename(dict(zip(stand_ins, table.column_names)))  # type: ignore[union-attr]


# Integers to wider integers or to floats, floats to wider floats: the casts the checked
# common schema needs (read_parquet_files refuses any that would change a value).
_LOSSLESS_CASTS = pl.ScanCastOptions(
    integer_cast=["upcast", "allow-float"], float_cast="upcast", categorical_to_string="allow"
)


def _scan_parquet(files: ParquetFiles) -> pl.LazyFrame:
    """The files as one LazyFrame (their names are not globs: a file may be named ``[x]``);
    files of several schemas under their common schema; the partition columns joined to
    each file's rows by its path."""
    found = files.partitions
    scan = functools.partial(
        pl.scan_parquet, list(files.paths), glob=False, hive_partitioning=False,
        include_file_paths=None if found is None else FILE_COLUMN,
    )  # fmt: skip
    if files.common_schema is None:
        rows = scan()
    else:
        rows = scan(
            schema=pl.from_arrow(files.common_schema.empty_table()).schema,
            missing_columns="insert",
            extra_columns="ignore",
            cast_options=_LOSSLESS_CASTS,
        )
    if found is None:
        return rows
    folders = pl.from_arrow(found.table).lazy()
    return rows.drop(found.in_files, strict=False).join(folders, on=FILE_COLUMN).drop(FILE_COLUMN)


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
        except _ENGINE_READ_ERRORS as error:
            arguments = signature.bind(*args, **kwargs).arguments
            binding = arguments["binding"]
            tables = ((arguments["source"], binding.source_columns), (arguments.get("second"), binding.second_columns))
            paths = [(table, columns) for table, columns in tables if is_path(table)]
            for table, columns in paths:
                raise_unreadable_file(table, columns)
            if paths:
                raise_if_files_changed(paths[0][0], error)
            raise

    return run  # type: ignore[return-value]


# What the engines raise for a listed file that is no longer there.
_MISSING_FILE_ERRORS = (duckdb.IOException, FileNotFoundError)


def raise_if_files_changed(source: Any, error: Exception) -> None:
    """Raise a SourceError when ``error`` is an engine's failure to find a file of the
    Parquet path ``source`` that was listed (and every file there now reads): a job
    removed or replaced it while the call read them."""
    if is_path(source) and isinstance(error, _MISSING_FILE_ERRORS):
        first_line = str(error).strip().splitlines()[0]
        raise SourceError(
            f"cannot read {str(source)!r}: a file was removed or replaced while it was read ({first_line}); "
            "run again once no job is writing the files"
        ) from None


def _unsupported(source: Any) -> SourceError:
    return SourceError(
        f"cannot read a {type(source).__name__}: pass a Parquet path or glob, a polars "
        "DataFrame or LazyFrame, a pyarrow Table, or a table name with con=<duckdb connection>"
    )
