"""Loading the SQL templates shipped in ``sql/`` and filling their ``{{ placeholders }}``,
and writing what the library puts into SQL: values as typed literals (``literal``), user
names as quoted identifiers (``quote``).

Templates are plain DuckDB SQL with ``{{ name }}`` placeholders. ``render`` writes the
slices' own:

* ``{{ by }}``: the slice columns of the call (``slice_1, slice_2``); when the call has no
  slices, a constant column ``slice_0`` stands in, so templates never special-case it
  (except that a window is not partitioned by that constant: ``PARTITION BY {{ by }}``
  is dropped, as one partition sorts slower than an unpartitioned window in DuckDB);
* ``{{ by(a) }}``: the slice columns of relation ``a`` (``a.slice_1, a.slice_2``);
* ``{{ same_slice(a, b) }}``: relations ``a`` and ``b`` are in the same slice
  (``a.slice_1 IS NOT DISTINCT FROM b.slice_1 AND ...``: a NULL slice key is a key);

and every other ``{{ name }}`` from the values its caller gives, SQL already written
(a value through ``literal``, a user's name through ``quote``, never pasted as raw
text); a placeholder without a value is an error, not left in the statement. What each
kind of template is given, and by whom:

* a metric (``sql/<family>/``, by ``compose.compose``): each of its parameters
  (``{{ k }}``, ``{{ threshold }}``, ``{{ average }}``, ``{{ gain }}``, ``{{ ties }}``,
  ..., the names its spec's ``Param`` declarations give) as a typed literal, and
  ``{{ weighted }}``: ``TRUE`` when the rows carry weights (a weight column or a
  bootstrap's counts), for a metric with a faster form for unweighted rows (auc,
  average_precision, gauc);
* a shared step (``sql/intermediates/``, by ``compose/intermediates.py``): ``{{ weight }}``
  (a used row's weight), ``{{ buckets }}`` (the score buckets of the distributed form)
  and what its family's ``Intermediate`` declares: its ``values`` (``{{ hist }}``), its
  ``each`` parameters as literals (``{{ ties }}``, ``{{ min_relevance }}``, ``{{ k }}``),
  the SQL its ``derived`` function writes for them (``{{ tie_breaks }}``,
  ``{{ peer_keys }}``, ``{{ peer_order }}``, ``{{ peer_columns }}``, ``{{ cutoff }}``) and
  the table of the parameters it ``collects`` (``{{ thresholds }}``);
* an interval (``sql/intervals/``, by ``compose/spread.py``): its metric's values
  (``{{ threshold }}``, ...), the SQL its ``Interval`` declaration names (``{{ value }}``,
  ``{{ per_query }}``, ``{{ successes }}``, ``{{ trials }}``, ``{{ positive }}``,
  ``{{ where }}``, ``{{ slope }}``, ...) and, for a paired comparison, ``{{ pair }}`` and
  ``{{ same_pair }}``;
* a curve (``sql/curves/``, by ``sqlmetrics/curves/``): its parameters, the SQL it
  computes (calibration's ``{{ cuts }}``) and, to thin its points, its quoted columns
  (``{{ x }}``, ``{{ y }}``, ``{{ columns }}``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from sqlglot import exp

from sqlmetrics.sqltext import folding

_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_SAME_SLICE = re.compile(r"\{\{\s*same_slice\((\w+),\s*(\w+)\)\s*\}\}")
_QUALIFIED_BY = re.compile(r"\{\{\s*by\((\w+)\)\s*\}\}")
_PARTITION_BY_SLICES = re.compile(r"PARTITION BY\s+\{\{\s*by\s*\}\}(\s*,)?\s*")
CONSTANT_SLICES = ("slice_0",)


@cache
def root() -> Traversable:
    """The folder ``sql/`` of the installed package (the templates)."""
    try:
        return resources.files("sqlmetrics.sql")
    except ModuleNotFoundError:  # running from a source tree that was not installed
        return Path(__file__).resolve().parents[2] / "sql"


@cache
def load(name: str) -> str:
    """The text of ``sql/<name>``, read from the installed package."""
    return (root() / name).read_text(encoding="utf-8")


def body(name: str) -> str:
    """The template's SQL without its leading comment block and trailing semicolon."""
    lines = load(name).strip().splitlines()
    while lines and lines[0].lstrip().startswith("--"):
        lines.pop(0)
    return "\n".join(lines).strip().rstrip(";")


def header(name: str) -> list[str]:
    """The first paragraph of the template's leading comment (what the step is, its
    formula and conventions), as its ``--`` lines: the lines before a blank ``--`` line
    or the ``reads:``/``params:``/``output:`` lines."""
    lines = []
    for line in load(name).strip().splitlines():
        text = line.strip()
        rest = text.removeprefix("--")
        if not text.startswith("--") or not rest.strip() or _SECTION.match(rest):
            break
        lines.append(text)
    return lines


_SECTION = re.compile(r"\s*(reads|params|output):")


def quote(name: str, dialect: str = "duckdb") -> str:
    """A user's column (or table part) name as a quoted identifier of ``dialect`` (a
    sqlglot dialect: its own escapes, e.g. ClickHouse's backslash): any text is just a name."""
    return exp.to_identifier(name, quoted=True).sql(dialect)


def literal(value: object, dialect: str = "duckdb") -> str:
    """A Python value as a typed SQL literal (floats as DOUBLE, never DECIMAL); a string
    quoted with the escapes of ``dialect`` (a sqlglot dialect)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot render non-finite {value!r} as a literal")
        return f"CAST({value!r} AS DOUBLE)"
    if isinstance(value, str):
        return exp.Literal.string(value).sql(dialect)
    raise TypeError(f"cannot render {type(value).__name__} as a SQL literal")


def ascending(keys: Iterable[str]) -> str:
    """An ORDER BY list of ``keys``, each ascending with NULLs last, said outright: a
    DuckDB connection's ``default_order`` and ``default_null_order`` would apply to an
    item that leaves them out."""
    return ", ".join(f"{key} ASC NULLS LAST" for key in keys)


def same_slice(slices: list[str] | tuple[str, ...], left: str, right: str) -> str:
    """SQL that is true when relations ``left`` and ``right`` are in the same slice."""
    return " AND ".join(f"{left}.{s} IS NOT DISTINCT FROM {right}.{s}" for s in slices)


def render(name: str, values: dict[str, str], slices: tuple[str, ...] = (), with_header: bool = True) -> str:
    """The template body with every placeholder replaced by already-rendered SQL and the
    branches its parameters rule out folded away (``folding.fold``), after its ``header``
    (so a composed statement says what each step is) unless not ``with_header``."""

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"template {name} needs {{{{ {key} }}}}, which was not given")
        return values[key]

    described = [_PLACEHOLDER.sub(r"\1", line) for line in header(name)] if with_header else []
    text = body(name)
    if tuple(slices) == CONSTANT_SLICES:
        text = _PARTITION_BY_SLICES.sub(lambda m: "PARTITION BY " if m.group(1) else "", text)
    text = _SAME_SLICE.sub(lambda m: same_slice(slices, m.group(1), m.group(2)), text)
    text = _QUALIFIED_BY.sub(lambda m: ", ".join(f"{m.group(1)}.{s}" for s in slices), text)
    used = {match.group(1) for match in _PLACEHOLDER.finditer(text)}
    text = _PLACEHOLDER.sub(fill, text)
    if any(_may_fold(values[key]) for key in used) or "RANGE(" in text:  # else nothing folds
        text = folding.fold(text)
    return "\n".join([*described, text])


def _may_fold(value: str) -> bool:
    """Whether a placeholder's value can make a branch constant: it is an integer, or it
    holds a string, boolean or NULL literal (a parameter, or SQL written with one; a
    double is a CAST, compared only with columns). Folding parses the step, so the
    others are left as written."""
    return bool(_INTEGER.fullmatch(value) or _LITERAL.search(value))


_INTEGER = re.compile(r"-?\d+")
_LITERAL = re.compile(r"'|\b(?:TRUE|FALSE|NULL)\b")


def fill(text: str, values: dict[str, str]) -> str:
    """``text`` with every ``{{ name }}`` replaced by ``values[name]``."""
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def split_final_select(sql: str) -> tuple[str, str]:
    """A rendered step split before its final top-level SELECT: (everything before it,
    comments and WITH steps; the SELECT). A template's top-level SELECT starts a line
    outside every parenthesis."""
    depth, start, position = 0, None, 0
    for line in sql.splitlines(keepends=True):
        code = line.split("--", 1)[0]
        if depth == 0 and code.startswith("SELECT"):
            start = position
        depth += code.count("(") - code.count(")")
        position += len(line)
    if start is None:
        raise ValueError("a step without a top-level SELECT")
    return sql[:start], sql[start:]
