"""Rendering the composed DuckDB SQL for another engine's dialect, with sqlglot.

The templates are written once, in DuckDB's dialect, to a portable subset (the rules
``tests/test_portability.py`` enforces over every template). sqlglot parses the composed
statement and writes it for the target, raising on anything the target cannot express
rather than writing degraded SQL. A few constructs have no sqlglot mapping, or one that
would change results, and are rewritten here first:

* ``error(message)``, the statement's refusal of bad data: ``raise_error`` (Spark),
  ``fail`` (Trino), ``ERROR`` (BigQuery). PostgreSQL and Snowflake have no such
  function; there the message is cast to an integer, which fails with an error whose
  text quotes the message (``invalid input syntax for type integer: "sqlmetrics:
  ..."``): the query still refuses bad data and says why.
* ``isnan(x)`` and ``isinf(x)``: where the target has no such function, comparisons
  with the special values (PostgreSQL and Snowflake treat NaN as equal to itself).
* ``UNNEST(RANGE(a, b))`` in a select list: PostgreSQL's ``generate_series`` (sqlglot
  would wrap it in an UNNEST PostgreSQL rejects); other dialects as sqlglot writes it.
* ``WITH name AS [NOT] MATERIALIZED``: a hint DuckDB and PostgreSQL take; dropped elsewhere.
* a metric's own WITH steps are renamed after the metric (``m_f1_scores``), since
  sqlglot lifts nested WITH clauses to the top for Spark, where they would clash.
* NULL ordering inside windows: every window orders by columns that are never NULL in
  the rows it sees (scores, labels and positions of used rows), so the target's default
  NULL ordering is kept instead of DuckDB's being spelled out (BigQuery cannot spell it
  in a window).

``datafusion`` is a target of the test suite, not of users: DataFusion reads DuckDB's
spelling once the rewrites above are made, and two of its own. ``error(message)`` is
kept: DataFusion has no such function, and the suite registers one (a volatile UDF) in
its session; the cast that stands in for it elsewhere would not do, as DataFusion may
compute a CASE branch's cast ahead of its condition (moving it below a join) and so
refuse good data. ``a IS [NOT] DISTINCT FROM b`` is parenthesized, as DataFusion's parser
binds it more loosely than ``AND`` (``x IS NOT DISTINCT FROM y AND p`` would read as
``x IS NOT DISTINCT FROM (y AND p)``). Its integer division is what the suite runs it
for (it catches a template dividing two integers).
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel, SqlglotError

from sqlmetrics.errors import InvalidParameterError, UnsupportedInDialectError

DIALECTS = ("duckdb", "spark", "trino", "bigquery", "snowflake", "postgres")
_TEST_TARGETS = ("datafusion",)

# The function that fails a query with a message, where the dialect has one (DataFusion's
# is the test suite's UDF).
_RAISE_FUNCTION = {"spark": "raise_error", "trino": "fail", "bigquery": "ERROR", "datafusion": "error"}
_MATERIALIZING = ("duckdb", "postgres")
_INFINITY = {"snowflake": "inf"}  # the text each dialect casts to +infinity


def check_dialect(dialect: str) -> None:
    if dialect not in DIALECTS:
        raise InvalidParameterError(f"dialect must be one of {', '.join(map(repr, DIALECTS))}, got {dialect!r}")


def transpile(sql: str, dialect: str) -> str:
    """``sql`` (DuckDB's dialect, as composed) written for ``dialect``. DuckDB gets the
    statement as composed; any other dialect the statement sqlglot writes, or an
    ``UnsupportedInDialectError`` naming the steps (``m_<metric>`` for a metric's own)
    that the dialect cannot express."""
    if dialect not in _TEST_TARGETS:
        check_dialect(dialect)
    if dialect == "duckdb":
        return sql
    tree = portable(sqlglot.parse_one(sql, read="duckdb"), dialect)
    writer = "duckdb" if dialect in _TEST_TARGETS else dialect
    try:
        return tree.sql(dialect=writer, pretty=True, unsupported_level=ErrorLevel.RAISE)
    except SqlglotError as error:
        raise UnsupportedInDialectError(_unsupported_message(tree, dialect, writer, error)) from None


def portable(tree: exp.Expression, dialect: str) -> exp.Expression:
    """``tree`` with the rewrites of the module docstring applied for ``dialect``."""
    return _unique_inner_ctes(tree.transform(lambda node: _rewrite(node, dialect), copy=True))


def _unique_inner_ctes(tree: exp.Expression) -> exp.Expression:
    """A metric's own WITH steps (``scores``, ``totals``, ...) named after the metric's
    step (``m_f1_scores``): sqlglot lifts nested WITH clauses to the top for dialects
    without them (Spark), where two metrics' ``scores`` would clash. A renamed table
    keeps its old name as its alias, so qualified columns still resolve. The metric's
    header comment, which sqlglot holds on the nested WITH and would drop when lifting
    it, moves to the first of its steps."""
    outer = tree.args.get("with_")
    for cte in outer.expressions if outer else []:
        inner = cte.this.args.get("with_")
        if inner is None:
            continue
        names = {step.alias: f"{cte.alias}_{step.alias}" for step in inner.expressions}
        for table in cte.this.find_all(exp.Table):
            if table.name in names and not table.args.get("db"):
                if not table.alias:
                    table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
                table.set("this", exp.to_identifier(names[table.name]))
        for step in inner.expressions:
            step.set("alias", exp.TableAlias(this=exp.to_identifier(names[step.alias])))
        inner.expressions[0].this.add_comments(inner.pop_comments(), prepend=True)
    return tree


def _rewrite(node: exp.Expression, dialect: str) -> exp.Expression:
    if isinstance(node, exp.Anonymous) and node.name.lower() == "error":
        return _raise(portable(node.expressions[0], dialect), dialect)  # transform skips a new node's children
    if isinstance(node, exp.IsNan) and dialect in ("postgres", "snowflake"):
        return exp.EQ(this=node.this, expression=_special("NaN"))
    if isinstance(node, exp.IsInf):
        if dialect == "trino":
            return exp.Anonymous(this="is_infinite", expressions=[node.this])
        if dialect != "bigquery":
            return exp.EQ(this=exp.Abs(this=node.this), expression=_special(_INFINITY.get(dialect, "Infinity")))
    if isinstance(node, exp.Explode) and dialect == "postgres" and isinstance(node.this, exp.GenerateSeries):
        return node.this  # a set-returning function already (sqlglot writes UNNEST(GENERATE_SERIES))
    if isinstance(node, exp.CTE) and node.args.get("materialized") is not None and dialect not in _MATERIALIZING:
        node.set("materialized", None)
    if isinstance(node, (exp.NullSafeEQ, exp.NullSafeNEQ)) and dialect == "datafusion":
        operands = {key: portable(node.args[key], dialect) for key in ("this", "expression")}
        return exp.Paren(this=type(node)(**operands))  # transform skips a new node's children
    if isinstance(node, exp.Window):
        for ordered in node.find_all(exp.Ordered):
            ordered.set("nulls_first", _default_nulls_first(dialect, bool(ordered.args.get("desc"))))
    return node


def _raise(message: exp.Expression, dialect: str) -> exp.Expression:
    function = _RAISE_FUNCTION.get(dialect)
    if function is None:  # fails with the message quoted in the cast's error
        return exp.cast(message, exp.DataType.Type.INT)
    return exp.Anonymous(this=function, expressions=[message])


def _special(text: str) -> exp.Expression:
    return exp.cast(exp.Literal.string(text), exp.DataType.Type.DOUBLE)


def _default_nulls_first(dialect: str, desc: bool) -> bool:
    """Whether ``dialect`` puts NULLs first by default (so sqlglot writes no NULLS clause)."""
    ordering = Dialect.get_or_raise("duckdb" if dialect in _TEST_TARGETS else dialect).NULL_ORDERING
    if ordering == "nulls_are_last":
        return False
    return desc if ordering == "nulls_are_large" else not desc


def _unsupported_message(tree: exp.Expression, dialect: str, writer: str, error: SqlglotError) -> str:
    """Which steps of the statement ``dialect`` cannot express, and sqlglot's reason."""
    failing = []
    for cte in tree.find_all(exp.CTE):
        try:
            cte.this.sql(dialect=writer, unsupported_level=ErrorLevel.RAISE)
        except SqlglotError:
            failing.append(cte.alias)
    metrics = [name.removeprefix("m_") for name in failing if name.startswith("m_")]
    what = f"metric(s) {', '.join(metrics)}" if metrics else f"step(s) {', '.join(failing) or 'of the statement'}"
    reason = str(error).strip().splitlines()[0]
    return f"{what} cannot be rendered for {dialect}: {reason}"
