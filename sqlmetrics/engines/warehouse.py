"""What the engines that run the composed statement in another dialect share (Spark,
PostgreSQL, ClickHouse): the statement itself, the quoted name of a table, and the statement's
refusal of bad data read back from the engine's error."""

from __future__ import annotations

import re

from sqlmetrics.binding import Binding
from sqlmetrics.compose import compose
from sqlmetrics.dialects import transpile
from sqlmetrics.errors import InvalidInputError
from sqlmetrics.rules.columns import ERROR_PREFIX
from sqlmetrics.sources import table_sql

# Where an engine's own text resumes after the message on its first line: the quote
# closing a failed cast's value (PostgreSQL), Spark's SQLSTATE, DataFusion's and
# ClickHouse's cast errors.
_MESSAGE_END = re.compile(r"(\"|\s*SQLSTATE.*|' to value of .*|' as Int32: .*)$")
# A character ClickHouse escapes with a backslash when it quotes a string in an error.
_ESCAPED = re.compile(r"\\(.)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "b": "\b", "f": "\f"}


def composed_in_dialect(binding: Binding, source_sql: str, second_sql: str | None, dialect: str) -> str:
    """The statement computing the call's metrics, written for ``dialect``."""
    return transpile(compose(binding, source_sql, second_sql, dialect), dialect)


def relation(name: str, dialect: str) -> str:
    """``SELECT * FROM <name>``, the name quoted part by part for ``dialect``."""
    return transpile(f"SELECT * FROM {table_sql(name)}", dialect)


def refusal(error: Exception, escaped: bool = False) -> InvalidInputError | None:
    """The statement's refusal of bad data (``sqlmetrics: ...``) in an engine's error, if
    the error is one: its first line (engines echo the statement further down, and the
    statement holds every message it could raise). ``escaped``: the engine quotes the
    message with backslash escapes (ClickHouse), which are undone."""
    lines = str(error).strip().splitlines()
    if not lines or ERROR_PREFIX not in lines[0]:
        return None
    message = _MESSAGE_END.sub("", lines[0].split(ERROR_PREFIX, 1)[1])
    if escaped:
        message = _ESCAPED.sub(lambda match: _ESCAPES.get(match.group(1), match.group(1)), message)
    return InvalidInputError(message.strip())
