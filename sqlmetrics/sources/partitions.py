"""Hive partitions: the ``key=value`` folders of a directory of Parquet files as columns.

``logs/date=2026-11-01/model=a/part-0.parquet`` has the columns of its file and
``date`` and ``model``, as Spark, DuckDB, polars and pyarrow read such directories.
sqlmetrics reads the folders itself, so that every engine sees the same columns of the
same types (DuckDB's own reading would also take folders above the source, and types
values otherwise than polars):

* the partition folders are those **below** the directory given (or below the fixed part
  of a glob: ``logs`` of ``logs/date=*/*.parquet``), as Spark, pyarrow and polars read
  them; a file named on its own has none;
* a folder is ``key=value`` (split at the first ``=``, the key not empty); values are
  %-decoded (``a%2Fb`` is ``a/b``, as Spark escapes them); ``__HIVE_DEFAULT_PARTITION__``
  (Spark's and Hive's NULL) and an empty value are NULL;
* a key's type is read from all its values: int64 when every value is an integer, else
  float64 when every value is a number, else a date (``2026-11-01``), else a timestamp
  without time zone (``2026-11-01 10:00:00``, microseconds), else a string;
* every file must sit below the same keys, in the same order;
* a key that is also a column inside the files is the folder's value; when the call
  reads that column, each file's values must equal its folder's (read as the file's
  type), or the call is refused.

The partition columns come after the files' columns.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sqlmetrics.errors import SourceError

# The column holding each file's path in the table of partition values (and in the rows
# an engine reads, to join them).
FILE_COLUMN = "sqlmetrics_partition_file"
# Spark's and Hive's name for a NULL partition value.
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"

# Each type a key may have, tried in order, with the form every value must have.
_KINDS = (
    (pa.int64(), re.compile(r"[+-]?\d+")),
    (pa.float64(), re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")),
    (pa.date32(), re.compile(r"\d{4}-\d{2}-\d{2}")),
    (pa.timestamp("us"), re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?")),
)


@dataclass(frozen=True)
class Partitions:
    """The partition keys of a set of files, and ``table``: one row per file, its path
    (``FILE_COLUMN``) and its value of each key; ``texts``: each file's folder values as
    written (``01`` of ``day=01``, typed 1); ``in_files``: the keys that are also
    columns of some file (the folder's value replaces theirs)."""

    keys: tuple[str, ...]
    table: pa.Table
    texts: Mapping[str, Mapping[str, str | None]]
    in_files: tuple[str, ...] = ()


def names_below(root: str, path: str) -> list[str]:
    """The folder and file names of ``path`` below ``root`` (a path a glob found under it)."""
    return [name for name in path[len(root) :].split(os.sep) if name]


def partitions(root: str | None, paths: tuple[str, ...]) -> Partitions | None:
    """The partitions of ``paths`` below ``root`` (None when they have none)."""
    if root is None:
        return None
    folders = {path: _key_values(names_below(root, path)[:-1]) for path in paths}
    keys = tuple(folders[paths[0]])
    if not keys and not any(folders.values()):
        return None
    for path, values in folders.items():
        if tuple(values) != keys:
            raise SourceError(
                f"the files below {root!r} are partitioned differently: {paths[0]!r} is below {_listed(keys)}, "
                f"{path!r} below {_listed(tuple(values))}; every file needs the same key=value folders"
            )
    columns = {FILE_COLUMN: pa.array(paths, pa.string())}
    for key in keys:
        columns[key] = _typed([folders[path][key] for path in paths])
    return Partitions(keys, pa.table(columns), folders)


def _key_values(folders: list[str]) -> dict[str, str | None]:
    """The ``key=value`` folders' values by key, %-decoded, NULL for Hive's NULL and ''."""
    values: dict[str, str | None] = {}
    for folder in folders:
        key, equals, value = folder.partition("=")
        if not equals or not key:
            continue
        key = urllib.parse.unquote(key)
        if key in values:
            raise SourceError(f"the partition key {key!r} appears twice in the folders {'/'.join(folders)!r}")
        values[key] = None if value in (HIVE_NULL, "") else urllib.parse.unquote(value)
    return values


def _listed(keys: tuple[str, ...]) -> str:
    return ", ".join(keys) if keys else "no key=value folder"


def _typed(values: list[str | None]) -> pa.Array:
    """The values under the first type of ``_KINDS`` that reads all of them, else as strings."""
    text = pa.array(values, pa.string())
    present = [value for value in values if value is not None]
    if not present:
        return text
    for kind, form in _KINDS:
        if all(form.fullmatch(value) for value in present):
            try:
                return text.cast(kind)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # an integer past int64, a 30 February
                continue
    return text


def check_file_columns(
    found: Partitions,
    schemas: Mapping[str, pa.Schema],
    footers: Mapping[str, pq.FileMetaData],
    columns: Collection[str],
) -> Partitions:
    """``found`` with the keys that are also columns of the files; raise when a file holds
    other values than its folder in such a column that the call reads (``columns``)."""
    in_files = tuple(key for key in found.keys if any(key in schema.names for schema in schemas.values()))
    paths = found.table.column(FILE_COLUMN).to_pylist()
    for key in in_files:
        if key not in columns:
            continue
        for path in paths:
            if key in schemas[path].names:
                _check_same(key, path, found.texts[path][key], schemas[path].field(key).type, footers[path])
    return Partitions(found.keys, found.table, found.texts, in_files)


def _check_same(key: str, path: str, value: str | None, kind: pa.DataType, footer: pq.FileMetaData) -> None:
    """Raise unless every row of the file holds ``value`` (the folder's text, read as the
    column's type: ``day=01`` holds 1 or ``'01'``) in column ``key``."""
    low, high, nulls = column_summary(path, footer, key)
    if value is None:
        same = low is None
    else:
        expected = _as_type(value, kind)
        same = nulls == 0 and expected is not None and low == expected and high == expected
    if not same:
        held = "only NULL" if low is None else f"{low} to {high}" if low != high else str(low)
        held += f" (and {nulls} NULL)" if nulls and low is not None else ""
        folder = HIVE_NULL if value is None else value
        raise SourceError(
            f"column {key!r} is both a partition folder and a column of the files, with other values: {path!r} is "
            f"below '{key}={folder}' but holds {held}; rename the column or the folder"
        )


def _as_type(value: str, kind: pa.DataType) -> object:
    """The folder's text read as the file column's type, or None when it cannot be."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    try:
        return pa.scalar(value).cast(kind).as_py()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None


def column_summary(path: str, footer: pq.FileMetaData, column: str) -> tuple[object, object, int]:
    """The smallest and largest value of ``column`` in the file and its NULL count: from
    the footer's statistics when every row group has them, else read from the column."""
    lows, highs, nulls = [], [], 0
    for group in range(footer.num_row_groups):
        chunks = footer.row_group(group)
        chunk = next(chunks.column(i) for i in range(chunks.num_columns) if chunks.column(i).path_in_schema == column)
        stats = chunk.statistics
        if stats is None or not stats.has_null_count or (stats.num_values and not stats.has_min_max):
            with pq.ParquetFile(path) as file:
                values = file.read(columns=[column]).column(0)
            extremes = pc.min_max(values).as_py()
            return extremes["min"], extremes["max"], values.null_count
        nulls += stats.null_count
        if stats.has_min_max:
            lows.append(stats.min)
            highs.append(stats.max)
    return (min(lows), max(highs), nulls) if lows else (None, None, nulls)
