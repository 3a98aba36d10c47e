"""The plan choices made from evidence about the source that reads no row of it.

Which plan the score-histogram metrics take: by distinct score, or row by row.

The metrics that read ``score_hist`` (auc, average_precision, logloss, calibration, the
threshold metrics) are exact from either plan (the same formulas; ties are taken
together by RANGE frames in SQL, by average ranks or tie groups in polars), but their
speed is not:

* few distinct scores (rounded or bucketed scores, small models): the histogram has a
  row per distinct score, and base's one aggregation makes it nearly for free;
* nearly all scores distinct (real models' float scores): the histogram has a row per
  row, and building it (a hash aggregate with a group per row) costs more than the sort
  that follows; the used rows go to the metrics as they are.

The choice is made from evidence that reads no row of the source, so it is the same for
the same input: for Parquet files, the score column's size in the files' footers (a
column of float scores that barely compresses holds nearly distinct values; repeated
values compress far below their plain size, or are dictionary-encoded); for an
in-memory polars frame or Arrow table, the distinct values among its first rows.
Without evidence (a table in a DuckDB connection, a LazyFrame) the plan is the histogram.

The source's row count (``source_rows``: Parquet footers, a frame's height) bounds the
number of ranking lists, which says whether DuckDB's top-k aggregate may hold k scores
for every list in memory (``metrics/ranking/list_sql.py``'s ``DUCKDB_TOP_K_SLOTS``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from sqlmetrics.binding import Binding
from sqlmetrics.compose import reads
from sqlmetrics.errors import SqlMetricsError
from sqlmetrics.sources import is_path
from sqlmetrics.sources.parquet_files import matched_paths
from sqlmetrics.sources.table_formats import delta_files, is_delta

# Plain bytes per value of the Parquet physical types a score can have.
PLAIN_BYTES = {"DOUBLE": 8, "FLOAT": 4, "INT64": 8, "INT32": 4}
# A score column whose compressed pages take at least this share of its plain size.
INCOMPRESSIBLE = 0.5
# The first rows of a frame whose distinct scores are counted, and the share of them
# that must be distinct.
SAMPLE_ROWS = 1 << 16
DISTINCT_SHARE = 0.5


def planned(binding: Binding, source: Any) -> Binding:
    """``binding`` with ``distinct_scores`` set when a metric reads the score histogram
    and the evidence says the scores of ``source`` are nearly all distinct, and with
    ``source_rows`` when a ranking metric has a cutoff."""
    if binding.ranking and any(call.kwargs.get("k") is not None for call in binding.calls):
        binding = dataclasses.replace(binding, source_rows=source_rows(source))
    if not binding.plain_score:
        return binding
    if not any(reads("score_hist", call.spec.intermediates) for call in binding.calls):
        return binding
    if binding.bootstrap and not any(reads("score_cum", call.spec.intermediates) for call in binding.calls):
        # sums over the resampled rows (logloss, calibration, ...): a histogram per replicate
        # would hold every distinct score R times (5 GB at 2M rows × 200 resamples)
        return dataclasses.replace(binding, distinct_scores=True)
    return dataclasses.replace(binding, distinct_scores=distinct_scores(source, binding.score))


def source_rows(source: Any) -> int | None:
    """The rows of ``source`` from its Parquet footers or its frame's height (None without
    evidence: a table in a DuckDB connection, a LazyFrame, an unreadable source)."""
    if isinstance(source, (pl.DataFrame, pa.Table)):
        return source.height if isinstance(source, pl.DataFrame) else source.num_rows
    if is_path(source):
        try:
            return sum(pq.read_metadata(path).num_rows for path in _files(source))
        except (SqlMetricsError, OSError, pa.ArrowException):
            return None
    return None


def distinct_scores(source: Any, column: str) -> bool:
    """Whether the evidence says the values of ``column`` in ``source`` are nearly all
    distinct (False without evidence: an unreadable source is the engine's to report)."""
    if isinstance(source, pa.Table):
        source = pl.from_arrow(source.select([column]).slice(0, SAMPLE_ROWS)) if column in source.column_names else None
    if isinstance(source, pl.DataFrame):
        if column not in source.columns:
            return False
        sample = source.get_column(column).head(SAMPLE_ROWS)
        return sample.len() > 0 and sample.n_unique() >= DISTINCT_SHARE * sample.len()
    if is_path(source):
        try:
            return _incompressible(_files(source), column)
        except (SqlMetricsError, OSError, pa.ArrowException):
            return False
    return False


def _files(source: str) -> list[str]:
    """The Parquet files of a path: a Delta table's current snapshot, or those it names."""
    return delta_files(str(source)) if is_delta(source) else matched_paths(source)


def _incompressible(paths: list[str], column: str) -> bool:
    """Whether ``column``'s chunks in the files' footers take at least ``INCOMPRESSIBLE``
    of the plain size of their values."""
    compressed = plain = 0
    for path in paths:
        metadata = pq.read_metadata(path)
        for group in range(metadata.num_row_groups):
            row_group = metadata.row_group(group)
            for index in range(row_group.num_columns):
                chunk = row_group.column(index)
                if chunk.path_in_schema != column:
                    continue
                if chunk.physical_type not in PLAIN_BYTES:
                    return False
                compressed += chunk.total_compressed_size
                plain += PLAIN_BYTES[chunk.physical_type] * chunk.num_values
    return plain > 0 and compressed >= INCOMPRESSIBLE * plain
