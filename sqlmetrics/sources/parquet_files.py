"""The Parquet files a path, glob or directory stands for, checked by their footers.

A path naming an existing file is that file, whatever its name (``f[1].parquet`` is not
a glob). A directory stands for every ``*.parquet`` file below it, at any depth; a glob
for the files it matches. Below the directory (or the glob's fixed part), a file whose
path has a file or folder name starting with ``_`` or ``.`` is skipped, as Spark, Hive
and pyarrow skip them (a failed job's ``_temporary/`` attempts, hidden ``.part`` copies,
``_SUCCESS`` markers), with a :class:`~sqlmetrics.errors.SkippedFilesWarning`; a file
named on its own is read. Folders named ``key=value`` below it are partition columns
(``sqlmetrics.sources.partitions``). Every matched file's footer is read (its schema and
statistics, not its rows): a file that is not Parquet, or is empty, is a
:class:`~sqlmetrics.errors.SourceError` naming it, the same for every engine.

Files written by several jobs may disagree on a column's type. A column the call reads
(a bound column) is combined only when no value changes:

* integers of several widths: the narrowest integer type holding them all (an unsigned
  width w with signed integers needs a signed 2w; unsigned 64-bit with signed: refused);
* integers with floats: the widest of the floats (float64 if any file has it), when the
  files' integers are exact in it: |value| <= 2^53 for float64, 2^24 for float32 (read
  from the footer's statistics, or from the column when a file has none);
* string, large string and string view (and dictionaries of them): a string;
* the null type (a column of only NULLs, as an empty file written from an empty frame
  has) with any type: that type.

Anything else (a boolean with numbers, a string with a number, two timestamp units, a
bound column missing from some files) is a ``SourceError`` naming the column, the files
and their types. Columns the call does not read may differ freely.
"""

from __future__ import annotations

import glob
import os
import warnings
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sqlmetrics.errors import Counted, Keyword, Part, SkippedFilesWarning, SourceError
from sqlmetrics.sources.partitions import Partitions, check_file_columns, column_summary, names_below, partitions

GLOB_CHARS = ("*", "?", "[")
# The largest magnitude up to which every integer is exact in a float type (its mantissa).
_EXACT_INTEGERS = {pa.float32(): 2**24, pa.float64(): 2**53}


@dataclass(frozen=True)
class ParquetFiles:
    """The matched files; when their schemas differ, the type to read each column under
    (only columns whose types combine, partition keys left out; ``None`` when every file
    has one schema); their partition folders (``None`` without)."""

    paths: tuple[str, ...]
    common_schema: pa.Schema | None = None
    partitions: Partitions | None = None


@dataclass(frozen=True)
class Listing:
    """The files a source names, sorted; ``root``, the folder below which partition
    folders are read (None for a file named on its own); and the files skipped there."""

    paths: tuple[str, ...]
    root: str | None = None
    skipped: tuple[str, ...] = ()


def listing(source: str | Path) -> Listing:
    """The files ``source`` names (see the module docstring), or an error when there are none."""
    text = str(source)
    if os.path.isfile(text):
        return Listing((text,))
    if os.path.isdir(text):
        pattern, root = os.path.join(glob.escape(text), "**", "*.parquet"), text
    elif any(ch in text for ch in GLOB_CHARS):
        pattern, root = text, _fixed_part(text)
    else:
        raise SourceError(f"file not found: {text!r}")
    found = sorted(path for path in glob.glob(pattern, recursive=True, include_hidden=True) if os.path.isfile(path))
    skipped = tuple(path for path in found if _hidden_below(root, path))
    paths = tuple(path for path in found if not _hidden_below(root, path))
    if not paths:
        why = f" ({Counted('file', 'files').of(len(skipped))} skipped: {SKIPPED_RULE} are temporary or hidden)"
        why = why if skipped else ""
        if os.path.isdir(text):
            raise SourceError(f"no Parquet files (*.parquet) in the directory {text!r}{why}")
        raise SourceError(f"no files match {text!r}{why}")
    return Listing(paths, root, skipped)


SKIPPED_RULE = "names starting with '_' or '.'"


def matched_paths(source: str | Path) -> list[str]:
    """The files ``source`` names, sorted (skipped files left out), or an error when there are none."""
    return list(listing(source).paths)


def _fixed_part(pattern: str) -> str:
    """The folders a glob starts with before its first wildcard: ``logs`` of ``logs/date=*/*.parquet``."""
    parts = pattern.split(os.sep)
    fixed = next(i for i, part in enumerate(parts) if any(ch in part for ch in GLOB_CHARS))
    return os.sep.join(parts[:fixed])


def _hidden_below(root: str, path: str) -> bool:
    return any(name.startswith(("_", ".")) and name not in (".", "..") for name in names_below(root, path))


def read_parquet_files(source: str | Path, columns: Collection[str]) -> ParquetFiles:
    """The files of ``source`` after checking their footers, their partitions, and how to
    read the bound ``columns`` when the files' schemas differ (see the module docstring).
    Says so (a ``SkippedFilesWarning``) when files were skipped."""
    listed = listing(source)
    _notify_skipped(listed)
    paths = list(listed.paths)
    footers = dict(zip(paths, _footers(paths)))
    schemas = {path: footer.schema.to_arrow_schema() for path, footer in footers.items()}
    found = partitions(listed.root, listed.paths)
    if found is not None:
        found = check_file_columns(found, schemas, footers, columns)
    first = schemas[paths[0]]
    if all(schema.equals(first) for schema in schemas.values()):
        return ParquetFiles(tuple(paths), partitions=found)
    keys = found.keys if found is not None else ()  # read from the folders, not the files
    names = [name for name in dict.fromkeys(n for schema in schemas.values() for n in schema.names) if name not in keys]
    fields = []
    for name in names:
        types = {path: _plain(schema.field(name).type) for path, schema in schemas.items() if name in schema.names}
        common = _common_type(types)
        if name in columns:
            _check_bound(name, types, paths, common)
            if common in _EXACT_INTEGERS:
                _check_exact_integers(name, types, footers, common)
        if common is not None:
            fields.append(pa.field(name, common))
    return ParquetFiles(tuple(paths), pa.schema(fields), found)


def _notify_skipped(listed: Listing) -> None:
    if listed.skipped:
        warnings.warn(
            SkippedFilesWarning(
                f"skipped {Counted('file', 'files').of(len(listed.skipped))} below {listed.root!r} "
                "whose path has a file or folder name "
                "starting with '_' or '.' (temporary and hidden files, as Spark, Hive and pyarrow skip them), "
                f"e.g. {listed.skipped[0]!r}"
            ),
            stacklevel=4,
        )


def row_count(source: str | Path) -> int:
    """The rows of every file of ``source``, from the footers (no row is read)."""
    return sum(footer.num_rows for footer in _footers(matched_paths(source)))


def raise_unreadable_file(source: str | Path, columns: Collection[str]) -> None:
    """Raise a SourceError naming the first file of ``source`` whose ``columns`` pyarrow
    cannot read (corrupt pages behind a sound footer); return when every file reads.
    An engine's failure to read files is diagnosed with it, so that it names the file
    and says the same in every engine."""
    for path in matched_paths(source):
        present = [column for column in columns if column in _footer(path).schema.names]
        try:
            _read_columns(path, present)
        except (OSError, pa.ArrowException) as error:
            raise SourceError(f"cannot read {path!r} as Parquet: {error}") from None


def _footers(paths: list[str]) -> list[pq.FileMetaData]:
    """Every file's footer, read in threads (a directory may hold thousands of files); the
    first unreadable file in ``paths`` order raises."""
    if len(paths) == 1:
        return [_footer(paths[0])]
    with ThreadPoolExecutor() as pool:
        return list(pool.map(_footer, paths))


def _footer(path: str) -> pq.FileMetaData:
    """The file's footer: its schema and statistics (not its rows; the file is closed)."""
    try:
        return pq.read_metadata(path)
    except (OSError, pa.ArrowException) as error:
        if _other_format(path):
            raise SourceError(*_not_parquet(path)) from None
        raise SourceError(f"cannot read {path!r} as Parquet: {error}") from None


PARQUET_MAGIC = b"PAR1"
# How to read a file of another format, by its extension (anything else: as CSV).
_READERS = {".json": "pl.read_json", ".jsonl": "pl.scan_ndjson", ".ndjson": "pl.scan_ndjson"}


def _other_format(path: str) -> bool:
    """Whether the file holds something (not nothing, nor a truncated Parquet file) that
    does not even start as Parquet does."""
    try:
        with open(path, "rb") as file:
            return file.read(len(PARQUET_MAGIC)) not in (PARQUET_MAGIC, b"")
    except OSError:
        return False


def _not_parquet(path: str) -> tuple[Part, ...]:
    """The message for a file of another format: what a source is, and how to read the
    file (in Python, its polars reader; elsewhere, converting it with DuckDB's command)."""
    reader = _READERS.get(os.path.splitext(path)[1].lower(), "pl.scan_csv")
    python = (
        "a source is Parquet files, a polars DataFrame or LazyFrame, a pyarrow Table, or a table name with "
        f"con=<duckdb connection>: to read it, pass {reader}({path!r})"
    )
    converted = f"convert it first, e.g. duckdb -c \"COPY (FROM {path!r}) TO 'out.parquet'\""
    return (
        f"cannot read {path!r}: it is not a Parquet file (it does not start with Parquet's magic bytes); ",
        Keyword("source", python=python, words=f"SOURCE is Parquet files or a table ({{option}}): {converted}"),
    )


def _read_columns(path: str, columns: list[str]) -> pa.Table:
    with pq.ParquetFile(path) as file:
        return file.read(columns=columns)


def _plain(kind: pa.DataType) -> pa.DataType:
    """The type of the values: dictionaries by their values, every string type as string."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or _is_string_view(kind):
        return pa.string()
    return kind


def _is_string_view(kind: pa.DataType) -> bool:
    """Whether ``kind`` is a string view (pyarrow >= 16 has the type; older ones cannot
    read one, so a type they give is never one)."""
    return getattr(pa.types, "is_string_view", lambda _: False)(kind)


def _common_type(types: dict[str, pa.DataType]) -> pa.DataType | None:
    """The type holding every value of ``types`` unchanged, or None (value ranges aside:
    integers read as floats are checked by ``_check_exact_integers``)."""
    kinds = set(types.values())
    if len(kinds) > 1:
        kinds.discard(pa.null())  # a column of only NULLs (an empty file's) holds no value to change
    if len(kinds) == 1:
        return kinds.pop()
    floats = [kind for kind in kinds if kind in _EXACT_INTEGERS]
    integers = [kind for kind in kinds if pa.types.is_integer(kind)]
    if len(floats) + len(integers) != len(kinds):
        return None
    if floats:
        return pa.float64() if pa.float64() in floats else pa.float32()
    signed = [kind.bit_width for kind in integers if pa.types.is_signed_integer(kind)]
    unsigned = [kind.bit_width for kind in integers if pa.types.is_unsigned_integer(kind)]
    if not signed:
        return pa.from_numpy_dtype(f"uint{max(unsigned)}")
    width = max(signed + [2 * bits for bits in unsigned])
    return pa.from_numpy_dtype(f"int{width}") if width <= 64 else None


def _check_bound(column: str, types: dict[str, pa.DataType], paths: Sequence[str], common: pa.DataType | None) -> None:
    missing = [path for path in paths if path not in types]
    if missing:
        raise SourceError(
            f"column {column!r} is missing from {_some(missing)} but is {_by_type(types)}: "
            "every file must have the columns the call reads"
        )
    if common is None:
        raise SourceError(
            f"column {column!r} has types that cannot be combined without changing values: {_by_type(types)}; "
            "rewrite the files with one type for it"
        )


def _check_exact_integers(
    column: str, types: dict[str, pa.DataType], footers: dict[str, pq.FileMetaData], common: pa.DataType
) -> None:
    """Raise when an integer of a file would round when read as the float type ``common``."""
    limit = _EXACT_INTEGERS[common]
    for path, kind in types.items():
        if not pa.types.is_integer(kind):
            continue
        low, high, _ = column_summary(path, footers[path], column)
        worst = low if low is not None and abs(low) > abs(high) else high
        if worst is not None and abs(worst) > limit:
            raise SourceError(
                f"column {column!r} is {_by_type(types)}: its value {worst} in {path!r} would round as {common} "
                f"(integers are exact only up to {limit}); rewrite the files with one type for it"
            )


def _some(paths: Sequence[str]) -> str:
    """The first path, and how many more there are."""
    more = f" (and {Counted('more file', 'more files').of(len(paths) - 1)})" if len(paths) > 1 else ""
    return f"{paths[0]!r}{more}"


def _by_type(types: dict[str, pa.DataType]) -> str:
    """Each type with the files that have it: "int64 in 'a.parquet', double in 'b.parquet'"."""
    paths_by_type: dict[str, list[str]] = {}
    for path, kind in types.items():
        paths_by_type.setdefault(str(kind), []).append(path)
    return ", ".join(f"{kind} in {_some(paths)}" for kind, paths in paths_by_type.items())
