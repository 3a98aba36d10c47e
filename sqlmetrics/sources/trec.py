"""Readers for TREC run and qrels files, the plain-text formats of ranking evaluation.

A **run** lists, for each query, the items a system retrieved, one per line::

    qid Q0 docno rank score tag

and **qrels** (query relevance judgements) list the judged items::

    qid iteration docno relevance

Fields are separated by runs of ASCII whitespace (spaces, tabs, ``\\v``, ``\\f``), lines end
in ``\\n`` or ``\\r\\n``, and blank lines are skipped, as ``trec_eval`` reads them. The
second field of either format (``Q0``, the iteration) is ignored whatever it holds.

Both readers parse the whole file in polars (one regular expression over all lines,
then vectorised casts), so a few million lines take about a second. A line with the
wrong number of fields, or a rank, score or relevance that is not a number, raises
:class:`~sqlmetrics.errors.SourceError` naming the file, the 1-based number of the first
bad line, and that line's text.
"""

from __future__ import annotations

import os
import re
from typing import IO

import polars as pl

from sqlmetrics.errors import SourceError

Source = str | os.PathLike[str] | IO[str] | IO[bytes]

# trec_eval splits on C isspace(); '\n' ends a line, so the others separate fields.
_SPACE = r"[ \t\x0b\x0c\r]"
_TOKEN = r"([^ \t\x0b\x0c\r]+)"
_SHOWN = 200  # at most this many characters of a bad line go into a message

RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iteration", "docno", "relevance")

RUN_SCHEMA = {"query": pl.String, "item": pl.String, "score": pl.Float64, "rank": pl.Int64, "run": pl.String}
QRELS_SCHEMA = {"query": pl.String, "item": pl.String, "relevance": pl.Float64}


def read_trec_run(path: Source) -> pl.DataFrame:
    """A TREC run file as a frame with columns ``query``, ``item``, ``score``, ``rank``, ``run``.

    Each non-blank line is ``qid Q0 docno rank score tag``: ``qid`` becomes ``query``,
    ``docno`` becomes ``item`` and ``tag`` (the run's name) becomes ``run``, all strings
    (so ``007`` stays ``007``); ``score`` is a Float64 and ``rank`` an Int64. The second
    field is ignored. Rows keep the file's order; nothing is sorted, deduplicated or
    checked beyond parsing (``nan`` and ``inf`` parse as floats, and the metrics that
    cannot use them say so). An empty file gives an empty frame.

    ``path`` is a file path or an open file (text or binary). A line with other than six
    fields, a ``rank`` that is not an integer or a ``score`` that is not a number raises
    :class:`~sqlmetrics.errors.SourceError` naming the file, the line and its text.

    >>> import os, tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".run", delete=False) as f:
    ...     _ = f.write("q1 Q0 d7 1 2.5 bm25\\n"
    ...                 "q1\\tQ0\\td3   2  1.25\\tbm25\\n"
    ...                 "\\n"
    ...                 "q2 Q0 d7 1 -0.5 bm25\\n")
    >>> read_trec_run(f.name)
    shape: (3, 5)
    ┌───────┬──────┬───────┬──────┬──────┐
    │ query ┆ item ┆ score ┆ rank ┆ run  │
    │ ---   ┆ ---  ┆ ---   ┆ ---  ┆ ---  │
    │ str   ┆ str  ┆ f64   ┆ i64  ┆ str  │
    ╞═══════╪══════╪═══════╪══════╪══════╡
    │ q1    ┆ d7   ┆ 2.5   ┆ 1    ┆ bm25 │
    │ q1    ┆ d3   ┆ 1.25  ┆ 2    ┆ bm25 │
    │ q2    ┆ d7   ┆ -0.5  ┆ 1    ┆ bm25 │
    └───────┴──────┴───────┴──────┴──────┘
    >>> with open(f.name, "a") as g:
    ...     _ = g.write("q2 Q0 d9 two 0.25 bm25\\n")
    >>> read_trec_run(f.name)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sqlmetrics.errors.SourceError: TREC run '....run', line 5: rank 'two' is not an integer: 'q2 Q0 d9 two 0.25 bm25'
    >>> os.remove(f.name)
    """
    name, lines = _lines(path, "TREC run")
    fields = _fields(lines, len(RUN_FIELDS))
    frame = fields.select(
        "line_no",
        "line",
        query=pl.col("f0"),
        item=pl.col("f2"),
        score=pl.col("f4").cast(pl.Float64, strict=False),
        rank=pl.col("f3").cast(pl.Int64, strict=False),
        run=pl.col("f5"),
    ).collect()
    _check(frame, name, "TREC run", RUN_FIELDS, {"rank": "an integer", "score": "a number"})
    return frame.select(list(RUN_SCHEMA))


def read_trec_qrels(path: Source) -> pl.DataFrame:
    """A TREC qrels file as a frame with columns ``query``, ``item``, ``relevance``.

    Each non-blank line is ``qid iteration docno relevance``: ``qid`` becomes ``query``
    and ``docno`` becomes ``item``, both strings; the iteration field is ignored.
    ``relevance`` is a Float64 so that graded judgements of any kind fit one type (TREC
    grades are integers, and ``2`` reads as ``2.0``). Negative grades, such as the ``-1``
    or ``-2`` some collections use for junk, are kept: whether a metric accepts them is
    for that metric's checks to say. Rows keep the file's order; an empty file gives an
    empty frame.

    ``path`` is a file path or an open file (text or binary). A line with other than four
    fields or a ``relevance`` that is not a number raises
    :class:`~sqlmetrics.errors.SourceError` naming the file, the line and its text.

    >>> import os, tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".qrels", delete=False) as f:
    ...     _ = f.write("q1 0 d7 2\\nq1 0 d3 0\\nq2\\t0\\td9\\t-1\\n")
    >>> read_trec_qrels(f.name)
    shape: (3, 3)
    ┌───────┬──────┬───────────┐
    │ query ┆ item ┆ relevance │
    │ ---   ┆ ---  ┆ ---       │
    │ str   ┆ str  ┆ f64       │
    ╞═══════╪══════╪═══════════╡
    │ q1    ┆ d7   ┆ 2.0       │
    │ q1    ┆ d3   ┆ 0.0       │
    │ q2    ┆ d9   ┆ -1.0      │
    └───────┴──────┴───────────┘
    >>> os.remove(f.name)
    >>> read_trec_qrels(f.name)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sqlmetrics.errors.SourceError: TREC qrels file not found: '....qrels'
    """
    name, lines = _lines(path, "TREC qrels")
    fields = _fields(lines, len(QRELS_FIELDS))
    frame = fields.select(
        "line_no",
        "line",
        query=pl.col("f0"),
        item=pl.col("f2"),
        relevance=pl.col("f3").cast(pl.Float64, strict=False),
    ).collect()
    _check(frame, name, "TREC qrels", QRELS_FIELDS, {"relevance": "a number"})
    return frame.select(list(QRELS_SCHEMA))


def _lines(source: Source, kind: str) -> tuple[str, pl.LazyFrame]:
    """The source's name and its non-blank lines, as ``line_no`` (1-based) and ``line``."""
    if hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        data = source.read()
    else:
        name = os.fspath(source)
        try:
            with open(name, "rb") as file:
                data = file.read()
        except FileNotFoundError:
            raise SourceError(f"{kind} file not found: {name!r}") from None
        except OSError as error:
            raise SourceError(f"cannot read {kind} file {name!r}: {error.strerror or error}") from None
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            line_no = data.count(b"\n", 0, error.start) + 1
            raise SourceError(
                f"{kind} {name!r}, line {line_no}: not UTF-8 text (byte {data[error.start]:#04x}); "
                "re-encode the file as UTF-8"
            ) from None
    else:
        text = data.removeprefix("\ufeff")
    try:
        whole = pl.LazyFrame({"line": [text]})
    except UnicodeEncodeError as error:  # a text stream holding lone surrogates
        line_no = text.count("\n", 0, error.start) + 1
        raise SourceError(
            f"{kind} {name!r}, line {line_no}: {text[error.start]!r} is not a character UTF-8 can hold; "
            "open the file as UTF-8 without errors='surrogateescape'"
        ) from None
    lines = (
        whole.select(pl.col("line").str.split("\n").explode().str.strip_suffix("\r"))
        .with_row_index("line_no", offset=1)
        .filter(~pl.col("line").str.contains(f"^{_SPACE}*$"))
    )
    return name, lines


def _fields(lines: pl.LazyFrame, n: int) -> pl.LazyFrame:
    """``line_no``, ``line`` and the fields ``f0`` .. ``f{n-1}``, all NULL when the line
    does not have exactly ``n`` fields."""
    pattern = f"^{_SPACE}*" + f"{_SPACE}+".join([_TOKEN] * n) + f"{_SPACE}*$"
    names = [f"f{i}" for i in range(n)]
    groups = pl.col("line").str.extract_groups(pattern).struct.rename_fields(names)
    return lines.with_columns(groups.alias("fields")).unnest("fields")


def _check(frame: pl.DataFrame, name: str, kind: str, layout: tuple[str, ...], numbers: dict[str, str]) -> None:
    """Raise for the first line with the wrong number of fields or a field that is not a number."""
    bad = pl.col("query").is_null() | pl.any_horizontal(pl.col(column).is_null() for column in numbers)
    first = frame.filter(bad).head(1)
    if first.is_empty():
        return
    line_no, line = first["line_no"].item(), first["line"].item()
    shown = line if len(line) <= _SHOWN else line[:_SHOWN] + "..."
    where = f"{kind} {name!r}, line {line_no}"
    tokens = re.findall(_TOKEN, line)
    if first["query"].item() is None:
        raise SourceError(
            f"{where}: expected {len(layout)} whitespace-separated fields ({' '.join(layout)}), "
            f"found {len(tokens)}: {shown!r}"
        )
    for column, what in numbers.items():
        if first[column].item() is None:
            token = tokens[layout.index(column)]
            raise SourceError(f"{where}: {column} {token!r} is not {what}: {shown!r}")
