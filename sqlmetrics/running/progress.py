"""A one-line progress report on a terminal for runs longer than a moment: the command
line's, and a long bootstrap's (``sqlmetrics.engines.long_bootstrap``).

One line at a time: while a ``Progress`` shows (``showing``), ``on_terminal`` adds no
other, and an engine that can tell the share of its statement done hands it to the line
that shows (``Progress.follow``: DuckDB's ``query_progress``; polars tells none)."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from types import TracebackType
from typing import TextIO

_SHOWING: ContextVar[Progress | None] = ContextVar("sqlmetrics_progress", default=None)


class Progress:
    """While the ``with`` block runs, after ``after`` seconds, keep one line on ``stream``
    up to date every ``every`` seconds: ``sqlmetrics: <what>… 37% 4 s``. ``percent`` (the
    DuckDB connection's ``query_progress``) gives the share done; a negative answer, or
    none, shows the elapsed time alone. The line fits the terminal's ``width`` (a wrapped
    line could not be rewritten in place): a long ``what`` keeps its end, the file name.
    The line is erased when the block ends, so the result that follows starts on a clean
    line, and before a notice written above it (``interject``)."""

    def __init__(
        self,
        stream: TextIO,
        what: str,
        percent: Callable[[], float] | None = None,
        after: float = 2.0,
        every: float = 0.5,
        width: int | None = None,
    ) -> None:
        self.stream, self.what, self.percent = stream, what, percent
        self.after, self.every = after, every
        self.width = width or _columns(stream)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._report, daemon=True)
        self._width = 0
        self._writing = threading.Lock()

    def __enter__(self) -> Progress:
        self._started = time.monotonic()
        self._showing = _SHOWING.set(self)
        self._thread.start()
        return self

    def follow(self, percent: Callable[[], float]) -> None:
        """Show the share done that ``percent`` tells (the running statement's), from now."""
        self.percent = percent

    def interject(self, text: str) -> None:
        """Write ``text`` (whole lines: a warning) where the line is, the line erased first;
        the next update draws it again below."""
        with self._writing:
            self.stream.write(("\r" + " " * self._width + "\r" if self._width else "") + text)
            self.stream.flush()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._done.set()
        self._thread.join()
        _SHOWING.reset(self._showing)
        if self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()

    def line(self, elapsed: float) -> str:
        share = self.percent() if self.percent is not None else -1.0
        done = f" {share:.0f}%" if share >= 0 else ""
        head, tail = "sqlmetrics: ", f"…{done} {elapsed:.0f} s"
        room = self.width - 1 - len(head) - len(tail)  # the last column left free: no wrap
        what = self.what if len(self.what) <= room else "…" + self.what[len(self.what) - room + 1 :]
        return (head + what + tail)[: self.width - 1] if room > 1 else (head + tail)[: self.width - 1]

    def _report(self) -> None:
        if self._done.wait(self.after):
            return
        while not self._done.is_set():
            text = self.line(time.monotonic() - self._started)
            with self._writing:
                self.stream.write("\r" + text.ljust(self._width))
                self.stream.flush()
                self._width = max(self._width, len(text))
            self._done.wait(self.every)


def showing() -> Progress | None:
    """The progress line showing now (in this thread's context), if any."""
    return _SHOWING.get()


def on_terminal(what: str, shown: bool = True) -> AbstractContextManager:
    """A progress line on stderr about ``what`` while the block runs, when ``shown``, stderr
    is a terminal and no line shows already; else nothing (never a line into a file or a
    pipe)."""
    if not shown or showing() is not None or not sys.stderr.isatty():
        return nullcontext()
    return Progress(sys.stderr, what)


def _columns(stream: TextIO) -> int:
    """The width of the terminal ``stream`` writes to (else of stdout's, or 80)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError):  # not a terminal, or no file descriptor (io.UnsupportedOperation)
        return shutil.get_terminal_size((80, 24)).columns
