"""Folding what a template's parameters make constant, so that a rendered statement holds
only the branch its parameters take.

A template branches on its parameters (``CASE WHEN {{ gain }} = 'linear' THEN label ELSE
POWER(2, label) - 1 END``, ``COALESCE({{ k }}, last_position)``, ``WHERE ... AND {{ average
}} = 'macro'``): the template documents both branches, and once the parameters are
literals, ``fold`` writes the one taken, in every dialect (the others are transpiled from
it). It folds exactly these forms, each only where the result is the same value of the
same type:

* a comparison of two literals (``'exponential' = 'linear'``: FALSE; ``NULL IS NULL``: TRUE;
  strings are only compared for equality, as their order is a collation's), arithmetic or
  a comparison with a NULL literal (NULL), NOT of a constant;
* AND and OR with TRUE or FALSE (``x AND TRUE``: x; ``x AND FALSE``: FALSE), and with NULL
  where it is a condition (of a WHEN, WHERE, HAVING or ON), where NULL is as FALSE;
* CASE with a constant operand or constant conditions: its branches that cannot be taken
  are dropped, and a CASE left with one value is that value, cast to the CASE's type
  where the value's own differs (``CASE WHEN FALSE THEN 0 ELSE x / CAST(n AS DOUBLE)
  END`` keeps DOUBLE);
* COALESCE with a literal first argument (``COALESCE(10, x)``: 10; ``COALESCE(NULL, x)``: x);
* a SELECT after the first of a UNION ALL that returns no row (its WHERE is FALSE, or it
  reads only such a SELECT), dropped;
* ``RANGE(a, b + 1)``, written ``GENERATE_SERIES(a, b)`` (a dialect whose series includes its
  end would write ``b + 1 - 1``).

A statement with nothing to fold is returned as it is, its layout kept; a folded one is
written by sqlglot (DuckDB's dialect, every ORDER BY item spelled out), its comments kept
as ``--`` lines.
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal

import sqlglot
from sqlglot import exp
from sqlglot.dialects.duckdb import DuckDB
from sqlglot.optimizer.annotate_types import annotate_types

_COMPARISONS = {
    exp.EQ: lambda a, b: a == b,
    exp.NEQ: lambda a, b: a != b,
    exp.GT: lambda a, b: a > b,
    exp.GTE: lambda a, b: a >= b,
    exp.LT: lambda a, b: a < b,
    exp.LTE: lambda a, b: a <= b,
}
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)
_FLOATING = {exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT}
# Where a NULL condition is as FALSE: a row or branch is taken only when it is TRUE.
_CONDITIONS = (exp.Where, exp.Having, exp.Join)
# A line of sqlglot's output that is a comment alone.
_COMMENT_LINE = re.compile(r"^(\s*)/\* ?(.*?) ?\*/$", re.MULTILINE)


@functools.lru_cache(maxsize=4096)
def fold(sql: str) -> str:
    """``sql`` (one DuckDB statement) with its constant branches folded, or as it is when
    it has none. Kept per text: parsing a step costs milliseconds, and a process renders
    the same steps again call after call."""
    tree = sqlglot.parse_one(sql, read="duckdb")
    changed = False
    for node in reversed(list(tree.walk(bfs=False))):  # children before their parents
        folded = _folded(node)
        if folded is not node:
            changed = True
            if node is tree:
                tree = folded
            else:
                node.replace(_bracketed(folded, node.parent))
    if not changed:
        return sql
    return _COMMENT_LINE.sub(r"\1-- \2", tree.sql(dialect=_SpelledOut, pretty=True))


class _SpelledOut(DuckDB):
    """DuckDB, every ORDER BY item written with its direction and where NULLs go (sqlglot
    leaves out DuckDB's defaults, which a connection's ``default_order`` and
    ``default_null_order`` may change)."""

    class Generator(DuckDB.Generator):
        def ordered_sql(self, expression: exp.Ordered) -> str:
            direction = "DESC" if expression.args.get("desc") else "ASC"
            nulls = "FIRST" if expression.args.get("nulls_first") else "LAST"
            return f"{self.sql(expression, 'this')} {direction} NULLS {nulls}"


def _bracketed(value: exp.Expression, parent: exp.Expression | None) -> exp.Expression:
    """``value`` in parentheses where it replaces an operand of an operator (sqlglot
    writes a tree as it is: ``CASE ... END * d`` folded to ``POWER(2, label) - 1`` must
    read ``(POWER(2, label) - 1) * d``)."""
    operator = isinstance(parent, (exp.Binary, exp.Unary)) and not isinstance(parent, exp.Paren)
    compound = isinstance(value, (exp.Binary, exp.Unary)) and not isinstance(value, exp.Paren)
    return exp.Paren(this=value) if operator and compound else value


def _folded(node: exp.Expression) -> exp.Expression:
    """``node`` folded, its children folded already (or ``node`` itself)."""
    if isinstance(node, exp.Paren) and _is_constant(node.this):
        return node.this
    if isinstance(node, (exp.Is, exp.NullSafeEQ, exp.NullSafeNEQ)):
        return _null_safe(node)
    if isinstance(node, tuple(_COMPARISONS)):
        return _compared(node)
    if isinstance(node, _ARITHMETIC) and (_is_null(node.left) or _is_null(node.right)):
        return exp.Null()
    if isinstance(node, exp.Not) and isinstance(node.this, (exp.Boolean, exp.Null)):
        return exp.Null() if _is_null(node.this) else exp.Boolean(this=not node.this.this)
    if isinstance(node, exp.Connector):
        return _connected(node)
    if isinstance(node, exp.Case):
        return _case(node)
    if isinstance(node, exp.Coalesce):
        return _coalesced(node)
    if isinstance(node, exp.GenerateSeries) and node.args.get("is_end_exclusive"):
        return _inclusive(node)
    if isinstance(node, exp.Union) and not node.args.get("distinct") and _empty(node.right):
        return node.left  # the first SELECT names the columns: only a later one is dropped
    return node


def _is_null(node: exp.Expression | None) -> bool:
    return isinstance(node, exp.Null)


def _is_constant(node: exp.Expression | None) -> bool:
    return isinstance(node, (exp.Boolean, exp.Null, exp.Literal))


def _value(node: exp.Expression) -> object:
    """A literal's value: a number as a Decimal (exact), a string, a boolean."""
    if isinstance(node, exp.Boolean):
        return node.this
    return Decimal(node.this) if node.is_number else node.this


def _comparable(left: exp.Expression, right: exp.Expression, ordered: bool) -> bool:
    """Whether two literals compare in Python as in SQL: both numbers, or both strings
    under (in)equality, or both booleans."""
    if isinstance(left, exp.Literal) and isinstance(right, exp.Literal):
        return left.is_number == right.is_number and (left.is_number or not ordered)
    return isinstance(left, exp.Boolean) and isinstance(right, exp.Boolean) and not ordered


def _compared(node: exp.Binary) -> exp.Expression:
    left, right = node.left, node.right
    if _is_null(left) or _is_null(right):
        return exp.Null()
    ordered = not isinstance(node, (exp.EQ, exp.NEQ))
    if not _comparable(left, right, ordered):
        return node
    return exp.Boolean(this=_COMPARISONS[type(node)](_value(left), _value(right)))


def _null_safe(node: exp.Expression) -> exp.Expression:
    """``a IS [NOT] NULL``, ``a IS [NOT] DISTINCT FROM b`` of two constants."""
    left, right = node.this, node.expression
    if not (_is_constant(left) and _is_constant(right)):
        return node
    if _is_null(left) or _is_null(right):
        same = _is_null(left) and _is_null(right)
    elif _comparable(left, right, ordered=False):
        same = _value(left) == _value(right)
    else:
        return node
    return exp.Boolean(this=same != isinstance(node, exp.NullSafeNEQ))


def _connected(node: exp.Connector) -> exp.Expression:
    """AND or OR with a constant side: the other side, or the constant that decides."""
    absorbing = isinstance(node, exp.Or)  # OR TRUE is TRUE, AND FALSE is FALSE
    null_is_false = _is_condition(node)
    for side, other in ((node.left, node.right), (node.right, node.left)):
        truth = _truth(side, null_is_false)
        if truth is None:
            continue
        return exp.Boolean(this=absorbing) if truth == absorbing else other
    return node


def _truth(node: exp.Expression, null_is_false: bool) -> bool | None:
    if isinstance(node, exp.Boolean):
        return node.this
    return False if null_is_false and _is_null(node) else None


def _is_condition(node: exp.Expression) -> bool:
    """Whether ``node``'s value is only ever asked whether it is TRUE: it is (inside AND,
    OR and parentheses) the condition of a WHEN, WHERE, HAVING or JOIN."""
    while isinstance(node.parent, (exp.And, exp.Or, exp.Paren)):
        node = node.parent
    parent = node.parent
    if isinstance(parent, exp.If) and isinstance(parent.parent, exp.Case):
        return node.arg_key == "this"
    return isinstance(parent, _CONDITIONS) and node.arg_key in ("this", "on")


def _case(node: exp.Case) -> exp.Expression:
    """The CASE without the branches it cannot take; the value itself when one is left."""
    operand, kept, default = node.this, [], node.args.get("default")
    for branch in node.args["ifs"]:
        truth = _branch_truth(operand, branch.this)
        if truth is None:
            kept.append(branch)
        elif truth:
            default = branch.args["true"]  # taken when no branch before it is
            break
    dropped = [b.args["true"] for b in node.args["ifs"] if b not in kept and b.args["true"] is not default]
    dropped += [node.args["default"]] if node.args.get("default") not in (None, default) else []
    if not dropped and len(kept) == len(node.args["ifs"]):
        return node
    if kept:
        result = exp.Case(this=operand, ifs=kept, default=default)
        return _typed(result, dropped, [b.args["true"] for b in kept] + [default])
    return _typed(default or exp.Null(), dropped, [default])


def _branch_truth(operand: exp.Expression | None, condition: exp.Expression) -> bool | None:
    """Whether a WHEN is always taken (True), never (False), or depends on the row (None)."""
    if operand is None:
        return _truth(condition, null_is_false=True)
    if not (_is_constant(operand) and _is_constant(condition)):
        return None
    if _is_null(operand) or _is_null(condition):
        return False
    return _value(operand) == _value(condition) if _comparable(operand, condition, ordered=False) else None


def _empty(query: exp.Expression) -> bool:
    """Whether ``query`` is a SELECT that returns no row whatever the data: its WHERE is
    FALSE or it reads only an empty subquery, and it groups (an aggregate without GROUP
    BY returns a row even of no rows) or aggregates nothing."""
    if not isinstance(query, exp.Select) or query.args.get("joins"):
        return False
    source = query.args.get("from_")
    reads_nothing = isinstance(query.args.get("where"), exp.Where) and _truth(query.args["where"].this, True) is False
    if source is not None and isinstance(source.this, exp.Subquery):
        reads_nothing = reads_nothing or _empty(source.this.this)
    aggregates = any(
        agg.find_ancestor(exp.Window) is None for e in query.expressions for agg in e.find_all(exp.AggFunc)
    )
    return reads_nothing and (query.args.get("group") is not None or not aggregates)


def _coalesced(node: exp.Coalesce) -> exp.Expression:
    first, rest = node.this, node.expressions
    if _is_null(first) and rest:
        return rest[0] if len(rest) == 1 else exp.Coalesce(this=rest[0], expressions=rest[1:])
    if isinstance(first, exp.Literal):
        return _typed(first, rest, [first])
    return node


def _inclusive(node: exp.GenerateSeries) -> exp.Expression:
    end = node.args["end"]
    if not (isinstance(end, exp.Add) and isinstance(end.expression, exp.Literal) and end.expression.this == "1"):
        return node
    return exp.GenerateSeries(start=node.args["start"], end=end.this, step=node.args.get("step"))


def _typed(value: exp.Expression, dropped: list, kept: list) -> exp.Expression:
    """``value`` standing for an expression of which ``dropped`` were also values: cast to
    DOUBLE when a dropped value is one (and so the expression was) and no kept one is."""
    if any(map(_floating, dropped)) and not any(_floating(v) for v in kept if v is not None):
        return exp.cast(value, exp.DataType.Type.DOUBLE)
    return value


def _floating(node: exp.Expression | None) -> bool:
    """Whether ``node`` is of a floating type, as far as its own SQL tells (a column's
    type is unknown here): a cast, a division (every template division is of a double),
    a function of double value, or arithmetic, a CASE or an aggregate over one."""
    if node is None or isinstance(node, exp.Null):
        return False
    if isinstance(node, exp.Div):
        return True
    annotated = annotate_types(node.copy(), dialect="duckdb").type
    if annotated is not None and annotated.this in _FLOATING:
        return True
    if isinstance(node, (exp.Paren, exp.Neg, exp.AggFunc)) and isinstance(node.this, exp.Expression):
        return _floating(node.this)
    if isinstance(node, _ARITHMETIC):
        return _floating(node.left) or _floating(node.right)
    if isinstance(node, exp.Case):
        return any(_floating(b.args["true"]) for b in node.args["ifs"]) or _floating(node.args.get("default"))
    if isinstance(node, exp.Coalesce):
        return any(_floating(v) for v in (node.this, *node.expressions))
    return False
