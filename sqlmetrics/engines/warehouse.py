"""What the engines that run the composed statement in another dialect share (Spark,
PostgreSQL): the statement itself, the quoted name of a table, and the statement's
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
# closing a failed cast's value (PostgreSQL), Spark's SQLSTATE, DataFusion's cast error.
_MESSAGE_END = re.compile(r"(\"|\s*SQLSTATE.*|' to value of .*)$")


def composed_in_dialect(binding: Binding, source_sql: str, second_sql: str | None, dialect: str) -> str:
    """The statement computing the call's metrics, written for ``dialect``."""
    return transpile(compose(binding, source_sql, second_sql, dialect), dialect)


def relation(name: str, dialect: str) -> str:
    """``SELECT * FROM <name>``, the name quoted part by part for ``dialect``."""
    return transpile(f"SELECT * FROM {table_sql(name)}", dialect)


def refusal(error: Exception) -> InvalidInputError | None:
    """The statement's refusal of bad data (``sqlmetrics: ...``) in an engine's error, if
    the error is one: its first line (engines echo the statement further down, and the
    statement holds every message it could raise)."""
    lines = str(error).strip().splitlines()
    if not lines or ERROR_PREFIX not in lines[0]:
        return None
    message = lines[0].split(ERROR_PREFIX, 1)[1]
    return InvalidInputError(_MESSAGE_END.sub("", message).strip())
