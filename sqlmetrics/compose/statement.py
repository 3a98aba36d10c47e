"""The WITH statement: the named steps in order, each under a comment saying what it is."""

from __future__ import annotations

import re
from functools import cache

from sqlmetrics.registry import families

# What each step of the core's that Python writes (rather than a template) is, shown
# above its SQL; a family's own steps are noted in its declaration (``steps.Family.notes``).
STEP_NOTES = {
    "input": "input: the source under canonical names (the only step that names your columns); w is the weight\n"
    "-- of a used row, NULL for a row left out for a NULL in a bound column",
    "base": "base: the one aggregation over the source, per slice (and score, label or class where a metric\n"
    "-- reads them): used rows n, all rows n_all, weight w; everything below reads it",
    "checks": "checks: the input rules; error() refuses the query with the first rule the data breaks",
    "row_counts": "row_counts: n_rows (used) and n_excluded per slice, the spine of the result",
    "unit_checks": "unit_checks: a unit of ci_unit in every used row; each query within one unit (a mean over\n"
    "-- queries clustered by it); each unit within one arm (arms compared)",
}


RESULT_NOTE = "the result: one row per slice, every metric joined by slice"


def assemble(ctes: dict[str, str], final_select: str, streamed: tuple[str, ...] = (), note: str = RESULT_NOTE) -> str:
    """``WITH <ctes> <final_select>``; base is materialized (every later step reads it),
    the ``streamed`` steps are not (each reader computes them again rather than holding
    them: a bootstrap's replicated rows). Each step starts with a comment saying what it
    is (a template's own header, or ``STEP_NOTES``), and the final select with ``note``,
    so the statement reads top to bottom in any dialect."""
    hints = {"base": "MATERIALIZED "} | dict.fromkeys(streamed, "NOT MATERIALIZED ")
    with_clause = ",\n".join(
        f"{name} AS {hints.get(name, '')}(\n{indent(_noted(name, sql))}\n)" for name, sql in ctes.items()
    )
    return f"WITH\n{with_clause}\n-- {note}\n{final_select}"


def _noted(name: str, sql: str) -> str:
    notes = step_notes()
    return sql if sql.startswith("--") or name not in notes else f"-- {notes[name]}\n{sql}"


@cache
def step_notes() -> dict[str, str]:
    """What each step that Python writes is: the core's (``STEP_NOTES``) and each
    family's own (``steps.Family.notes``)."""
    return {**STEP_NOTES, **{name: note for family in families().values() for name, note in family.notes.items()}}


def indent(sql: str, prefix: str = "  ") -> str:
    """``sql`` with every non-empty line indented by ``prefix``, except the lines that
    continue a quoted identifier or string literal: a column named ``"y\\nz"`` stays
    that name (indenting it would name another column).

    >>> print(indent('SELECT "y\\nz" AS label,\\n  \\'a\\nb\\' AS s'))
      SELECT "y
    z" AS label,
        'a
    b' AS s
    """
    lines = sql.split("\n")
    inside = _quoted_line_starts(sql)
    return "\n".join(prefix + line if line and not quoted else line for line, quoted in zip(lines, inside, strict=True))


# The lexemes that decide whether a newline falls inside a quoted identifier or literal:
# a quoted name or string (a doubled quote inside is part of it, as SQL escapes it), or a
# comment (a quote inside it opens nothing).
_LEXEME = re.compile(r"\"(?:[^\"]|\"\")*\"?|'(?:[^']|'')*'?|--[^\n]*|/\*.*?(?:\*/|$)", re.DOTALL)


def _quoted_line_starts(sql: str) -> list[bool]:
    """For each line of ``sql`` (split at every newline), whether it starts inside a
    quoted identifier or string literal."""
    inside = [False] * (sql.count("\n") + 1)
    for match in _LEXEME.finditer(sql):
        if match.group().startswith(('"', "'")):
            first = sql.count("\n", 0, match.start()) + 1
            for line in range(first, first + match.group().count("\n")):
                inside[line] = True
    return inside
