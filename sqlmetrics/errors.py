"""The errors sqlmetrics raises for bad input: each says what is wrong and how to fix it."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any


@dataclass(frozen=True)
class Keyword:
    """A keyword argument as an error message names it, so that another interface (the
    command line) can name it its own way (``--resamples``) without rewriting the words.

    ``name`` is the keyword: ``resamples``, ``ci_method``; a keyword of ``sm.long_scores``
    as ``long_scores.row_id``; a role of an argument that other interfaces give an option
    of its own as that role (``long_scores``: a long class-score table). In Python the
    message reads ``python`` when given, else ``name='value'`` (``value``), ``name=<hint>``
    (``hint``) or the bare ``name``. Elsewhere it reads the option followed by the ``value``
    or ``<hint>`` when there is one, else ``words`` with ``{option}`` (and ``{metavar}``,
    the option's value as its help names it) filled in.
    """

    name: str
    value: Any = None
    hint: str | None = None
    python: str | None = None
    words: str = "{option}"

    def __str__(self) -> str:
        if self.python is not None:
            return self.python
        if self.value is not None:
            return f"{self.name}={self.value!r}"
        if self.hint is not None:
            return f"{self.name}=<{self.hint}>"
        return self.name


@dataclass(frozen=True)
class Value:
    """A value of a keyword named on its own in a message (``(or 'auto')``): quoted in
    Python, as typed elsewhere (``(or auto)``)."""

    value: Any

    def __str__(self) -> str:
        return repr(self.value)


Part = str | Keyword | Value


class SqlMetricsError(ValueError):
    """Base class of every error caused by the caller's input (not a bug in sqlmetrics).

    The message is given in parts: text, and the ``Keyword`` arguments (and ``Value``
    objects) it names, which ``str(error)`` writes as Python spells them and
    ``spelled`` as another interface does. ``parameter`` is the keyword argument the error
    is about (by default the first one the message names; None: no single one)."""

    def __init__(self, *message: Part, parameter: str | None = None) -> None:
        self.parts = message
        keywords = [part.name for part in message if isinstance(part, Keyword)]
        self.parameter = parameter if parameter is not None else next(iter(keywords), None)
        super().__init__("".join(map(str, message)))

    def spelled(self, keyword: Callable[[Keyword], str], value: Callable[[Value], str] = str) -> str:
        """The message with each keyword written by ``keyword`` and each lone value by ``value``."""
        return "".join(
            keyword(part) if isinstance(part, Keyword) else value(part) if isinstance(part, Value) else part
            for part in self.parts
        )


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


class OutputError(SqlMetricsError):
    """A path sqlmetrics is asked to write that it will not write to: an empty path, a
    folder of other files, a symbolic link, or one the system refuses."""


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


class LongBootstrapWarning(UserWarning):
    """A call whose bootstrap will be long (``sqlmetrics.engines.long_bootstrap``), said before it
    starts: its ``rows`` × ``resamples``, the ``metrics`` it resamples (result columns)
    and, in the message, why each is resampled and how to make it cheaper."""

    def __init__(self, message: str, rows: int, resamples: int, metrics: tuple[str, ...]) -> None:
        super().__init__(message)
        self.rows, self.resamples, self.metrics = rows, resamples, metrics


def shown(value: Any) -> str:
    """``value`` as a message quotes it: a path as ``the path 'logs/a.parquet'`` (not
    ``PosixPath('logs/a.parquet')``, which speaks Python's internals), anything else as
    its repr."""
    return f"the path {str(value)!r}" if isinstance(value, PurePath) else repr(value)


def closest(name: str, candidates: Iterable[str], n: int = 3) -> str:
    """A phrase suggesting the closest candidates to a misspelt name."""
    matches = difflib.get_close_matches(name, list(candidates), n=n, cutoff=0.5)
    return f"; did you mean {', '.join(repr(m) for m in matches)}?" if matches else ""


@dataclass(frozen=True)
class Counted:
    """What a message says after a count, agreeing with it in number: ``one`` after a
    count of 1, ``many`` after any other (``rules/columns.py``'s ``counted_sql`` says it
    in SQL).

    >>> rows = Counted("row is not", "rows are not")
    >>> rows.of(1), rows.of(2), Counted("row was", "rows were").of(1234, ",")
    ('1 row is not', '2 rows are not', '1,234 rows were')
    """

    one: str
    many: str

    def of(self, count: int, spec: str = "") -> str:
        """``count`` (formatted by ``spec``: ``","`` separates thousands) and the words
        that agree with it."""
        return f"{count:{spec}} {self.one if count == 1 else self.many}"
