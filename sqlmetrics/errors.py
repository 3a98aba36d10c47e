"""The errors sqlmetrics raises for bad input: each says what is wrong and how to fix it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import PurePath
from typing import Any


class SqlMetricsError(ValueError):
    """Base class of every error caused by the caller's input (not a bug in sqlmetrics)."""


class UnknownMetricError(SqlMetricsError):
    """A metric name that is not registered."""


class InvalidParameterError(SqlMetricsError):
    """A metric parameter (threshold, beta, weighting, ...) that breaks its rule."""


class ColumnNotFoundError(SqlMetricsError):
    """A bound column that the source does not have."""


class InvalidInputError(SqlMetricsError):
    """Data that no metric can be computed from: bad labels, NaN scores, negative weights."""


class SourceError(SqlMetricsError):
    """A source that cannot be read: missing file, empty glob, unsupported object."""


class UnsupportedInDialectError(SqlMetricsError):
    """A metric (or a step of the statement) whose SQL the target dialect cannot express."""


class EngineOutOfMemoryError(MemoryError):
    """The engine ran out of the memory and spill space it was given (not bad input: the
    same call succeeds with more); the message says which limits and how to raise them."""


class SkippedFilesWarning(UserWarning):
    """Files below a Parquet directory (or glob) left out because a file or folder name
    of their path starts with ``_`` or ``.`` (temporary and hidden files: Spark's
    ``_temporary/`` attempts, ``.part`` copies, ``_SUCCESS``), as Spark, Hive and pyarrow do."""


class NoRowsUsedWarning(UserWarning):
    """A report or table computed from no row: the source has none, or every row was
    excluded (``excluded`` of them, each for a NULL in a bound column)."""

    def __init__(self, message: str, excluded: int) -> None:
        super().__init__(message)
        self.excluded = excluded


class SlicesNotShownWarning(UserWarning):
    """A report that shows only its first ``shown`` of ``total`` slices (``max_slices``)."""

    def __init__(self, message: str, shown: int, total: int) -> None:
        super().__init__(message)
        self.shown, self.total = shown, total


def shown(value: Any) -> str:
    """``value`` as a message quotes it: a path as ``the path 'logs/a.parquet'`` (not
    ``PosixPath('logs/a.parquet')``, which speaks Python's internals), anything else as
    its repr."""
    return f"the path {str(value)!r}" if isinstance(value, PurePath) else repr(value)


def closest(name: str, candidates: Iterable[str], n: int = 3) -> str:
    """A phrase suggesting the closest candidates to a misspelt name."""
    matches = difflib.get_close_matches(name, list(candidates), n=n, cutoff=0.5)
    return f"; did you mean {', '.join(repr(m) for m in matches)}?" if matches else ""
