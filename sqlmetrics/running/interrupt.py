"""Ctrl-C during a query: ``KeyboardInterrupt`` at once, and the query stopped where the
engine can stop it.

An engine's query runs in native code, where Python's Ctrl-C handler does not run: DuckDB
looks for it only now and then (25 s late on a long bootstrap) and raises its own
``RuntimeError: Query interrupted``, and a polars query finishes first. So a query runs in a worker thread
while the caller's thread waits, where Ctrl-C is a ``KeyboardInterrupt`` at once; then
``stop`` (DuckDB's ``connection.interrupt``) ends the query, and the worker is awaited so
that the connection is free again. polars cannot stop a running query: it finishes in
the background and its result is dropped.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")
WAKE = 0.1  # seconds between looks at a pending Ctrl-C (_thread.interrupt_main sends no signal)
THREAD_NAME = "sqlmetrics query"


def query_still_running() -> bool:
    """Whether a query left behind by a Ctrl-C (polars cannot stop one) still runs."""
    return any(thread.name == THREAD_NAME and thread.is_alive() for thread in threading.enumerate())


def interruptible(work: Callable[[], T], stop: Callable[[], None] | None = None) -> T:
    """``work()``, run in a worker thread while this thread waits: its result, or its
    exception; on Ctrl-C, ``stop()`` (then the worker is awaited) and KeyboardInterrupt."""
    outcome: dict[str, Any] = {}
    finished = threading.Event()  # not Thread.join: a join cut short by Ctrl-C marks the worker ended

    def run() -> None:
        try:
            outcome["result"] = work()
        except BaseException as error:  # handed to the waiting thread, which raises it
            outcome["error"] = error
        finally:
            finished.set()

    threading.Thread(target=run, name=THREAD_NAME, daemon=True).start()
    try:
        while not finished.wait(WAKE):  # woken now and then: a Ctrl-C simulated without a signal is seen too
            pass
    except KeyboardInterrupt:
        if stop is not None:
            stop()
            finished.wait()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def in_a_worker(function: Callable[P, T]) -> Callable[P, T]:
    """``function`` run by ``interruptible``: Ctrl-C raises KeyboardInterrupt at once."""

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return interruptible(lambda: function(*args, **kwargs))

    return run
