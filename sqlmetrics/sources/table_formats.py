"""Lake table formats as sources: a Delta Lake table (the path of its folder, which holds
``_delta_log``) and an Apache Iceberg table (a ``pyiceberg`` Table, e.g.
``load_catalog(...).load_table("db.impressions")``). Each engine reads the table's
current snapshot through the table's own library, never its folder's Parquet files as
they lie (a Delta folder keeps removed files until vacuumed; an Iceberg table's files
are its manifests' to name): ``opened`` turns such a source into one the engines read.
Partition columns are columns of the rows, usable in ``by=``.

* Delta: DuckDB scans ``deltalake``'s pyarrow dataset of the snapshot (lazily, the
  columns it reads); polars scans it with ``pl.scan_delta``.
* Iceberg: both engines read ``pyiceberg``'s scan of the columns the call reads, as an
  Arrow table (held in memory: the columns of the call, not the table's).

``deltalake`` and ``pyiceberg`` are imported only when such a source is given:
``pip install 'sqlmetrics[lake]'``.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from sqlmetrics.errors import SourceError
from sqlmetrics.sqltext import templates


def is_delta(source: Any) -> bool:
    """A path (string or Path) to a Delta Lake table's folder."""
    return isinstance(source, (str, Path)) and (Path(source) / "_delta_log").is_dir()


def is_iceberg(source: Any) -> bool:
    """A pyiceberg Table (told by its class, so that pyiceberg need not be installed)."""
    kind = type(source)
    return kind.__module__.startswith("pyiceberg.") and kind.__name__ in ("Table", "StaticTable")


def opened(source: Any, columns: Collection[str], delta_snapshot: Callable[[Any, str], Any]) -> Any:
    """``source`` as an engine reads it: a Delta table's current snapshot as
    ``delta_snapshot`` gives it (``delta_dataset``: DuckDB's; ``delta_frame``: polars'), an
    Iceberg table's ``columns`` as an Arrow table; any other source as it is."""
    if is_delta(source):
        return delta_snapshot(_delta_table(str(source)), str(source))
    if is_iceberg(source):
        names = [field.name for field in source.schema().fields]
        missing = [column for column in columns if column not in names]
        if missing:  # the engines' schema check names it among the table's columns
            return source.scan(limit=0).to_arrow()
        return source.scan(selected_fields=tuple(dict.fromkeys(columns))).to_arrow()
    return source


def delta_dataset(table: Any, path: str) -> Any:
    """The snapshot of the Delta table ``table`` (at ``path``) as a pyarrow dataset, which
    DuckDB scans lazily, the columns it reads."""
    return table.to_pyarrow_dataset()


def delta_frame(table: Any, path: str) -> Any:
    """The snapshot of the Delta table ``table`` (at ``path``) as a polars LazyFrame."""
    import polars as pl

    if any("%" in uri for uri in table.file_uris()):
        # deltalake names the files of a folder with a space or an apostrophe
        # percent-encoded, and pl.scan_delta opens those names as they are: no such file
        return pl.scan_pyarrow_dataset(table.to_pyarrow_dataset())
    return pl.scan_delta(path)


def _delta_table(path: str) -> Any:
    try:
        import deltalake
    except ImportError:
        raise SourceError(
            f"{path!r} is a Delta Lake table: reading it needs the deltalake package (pip install 'sqlmetrics[lake]')"
        ) from None
    return deltalake.DeltaTable(path)


def delta_files(path: str) -> list[str]:
    """The Parquet files of a Delta table's current snapshot (its footers are evidence of
    the scores, ``source_evidence``), as local paths (deltalake percent-encodes them)."""
    import deltalake

    return [urllib.parse.unquote(uri.removeprefix("file://")) for uri in deltalake.DeltaTable(path).file_uris()]


def delta_sql(path: str) -> str:
    """The FROM expression ``sm.to_sql`` shows for a Delta table: DuckDB's ``delta_scan``
    (its delta extension), which reads the snapshot as the engines do."""
    return f"delta_scan({templates.literal(path)})"
