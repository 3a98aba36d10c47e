"""What the command line says when it stops: a usage error, and an API error with the
keyword arguments it names written as the command line's options (``--resamples``).

The options come from the parser itself: each option stands for the API keyword of its
``dest``, or for the one ``stands_for`` marks on it (``--row-id``: ``sm.long_scores``'
``row_id``), so an option added or renamed in the parser is named in every message."""

from __future__ import annotations

import argparse
import sys

from sqlmetrics.errors import Keyword, SqlMetricsError

PROG = "sqlmetrics"


class UsageError(Exception):
    """A bad command line: reported in one line, exit status 2."""


def stands_for(action: argparse.Action, keyword: str) -> argparse.Action:
    """Mark the option ``action`` as the command line's form of the API's ``keyword``
    (``long_scores.row_id``, ``source``), where its dest does not say so."""
    action.keyword = keyword  # type: ignore[attr-defined]
    return action


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Every option of ``parser`` and its commands, by the API keyword it stands for (an
    option's first command wins: the same keyword is the same option in every command)."""
    found: dict[str, argparse.Action] = {}
    for action in parser._actions:  # argparse lists its actions nowhere public
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                found = options(command) | found
        elif action.option_strings:
            found.setdefault(getattr(action, "keyword", action.dest), action)
    return found


def spelled(error: Exception, known: dict[str, argparse.Action]) -> str:
    """``error``'s message with each keyword argument it names written as its option in
    ``known`` (a keyword without one as Python names it) and each lone value as typed."""
    if not isinstance(error, SqlMetricsError):
        return str(error)

    def option(keyword: Keyword) -> str:
        action = known.get(keyword.name)
        if action is None:
            return str(keyword)
        flag = max(action.option_strings, key=len)
        if keyword.value is not None:
            return f"{flag} {keyword.value}"
        if keyword.hint is not None:
            return f"{flag} <{keyword.hint}>"
        metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
        return keyword.words.replace("{option}", flag).replace("{metavar}", metavar)

    return error.spelled(option, lambda value: str(value.value))


def fail(error: Exception, status: int, known: dict[str, argparse.Action]) -> int:
    """Print ``error`` as one line on stderr; return the exit ``status``."""
    print(f"{PROG}: error: {spelled(error, known)}", file=sys.stderr)
    return status
