"""Rendering the composed DuckDB SQL for another engine's dialect, with sqlglot.

The templates are written once, in DuckDB's dialect, to a portable subset (the rules
``tests/test_portability.py`` enforces over every template). sqlglot parses the composed
statement and writes it for the target, raising on anything the target cannot express
rather than writing degraded SQL. A few constructs have no sqlglot mapping, or one that
would change results, and are rewritten here first:

* ``error(message)``, the statement's refusal of bad data: ``raise_error`` (Spark),
  ``fail`` (Trino), ``ERROR`` (BigQuery). PostgreSQL, Snowflake and ClickHouse have no
  such function; there the message is cast to an integer, which fails with an error whose
  text quotes the message (``invalid input syntax for type integer: "sqlmetrics:
  ..."``): the query still refuses bad data and says why. ClickHouse's ``throwIf`` takes
  only a constant message; its cast is to ``Int32``, not ``Nullable(Int32)`` (which gives
  NULL for a string, letting bad data through), of ``materialize(message)`` (ClickHouse
  computes a constant expression while planning, in whichever CASE branch, and would
  refuse good data).
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

ClickHouse needs more (its record's facts): counts, row numbers and ranks are UInt64 and
so is ``ABS`` of an integer, which has no common type with a signed integer (a CASE mixing
them fails): they are cast to BIGINT, ``ABS(x)`` written ``GREATEST(x, -x)``; ``RANGE(a,
b)`` is ``range(a, COALESCE(b, a))`` (its ``range`` refuses a NULL end); a subquery's
column ``t.x`` keeps its qualifier as its name, so it is aliased ``AS x``; ``nan`` and
``inf`` are numbers unless quoted; ``uuid()`` (a state's id) is ``generateUUIDv4()``.
Its statement ends with the SETTINGS it needs (``CLICKHOUSE_SETTINGS``):
``prefer_column_name_to_alias`` (ClickHouse resolves an alias anywhere in the query, so
``SUM(w) AS w`` would read itself: ILLEGAL_AGGREGATION),
``join_use_nulls`` (an outer join's missing side is NULL, not 0 or ''),
``aggregate_functions_null_for_empty`` (SUM, AVG, MIN of no rows are NULL, not 0 or nan),
``short_circuit_function_evaluation`` (the refusal's cast computed only where its
condition holds) and a higher ``query_plan_max_optimizations_to_apply`` (a statement of
many ranking metrics exceeds the default while ClickHouse plans it).

Each dialect's facts are one ``Dialect`` record (``dialect_named(name)``), as sqlglot keeps one
class per dialect: the rewrites above read them, and so does the composer (a distributed
engine's forms, DuckDB's own aggregates).

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

from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect as SqlglotDialect
from sqlglot.errors import ErrorLevel, SqlglotError

from sqlmetrics.errors import InvalidParameterError, UnsupportedInDialectError


@dataclass(frozen=True)
class Dialect:
    """What the library needs to know of one target's SQL: how the composed statement
    (DuckDB's dialect) is written for it and which forms of the steps it takes."""

    name: str  # as ``sm.to_sql(dialect=...)`` takes it
    writer: str  # the sqlglot dialect that writes the statement
    # DuckDB itself: the composed statement is its SQL as it is (neither rewritten nor
    # transpiled); it may read a frame or Parquet files, use DuckDB's own aggregates
    # (the top k of max(x, k)), and its ``/`` divides integers exactly
    native: bool = False
    # rows are spread over workers, where a window over a whole slice runs on one
    # worker: the running sums over sorted scores are taken in score buckets instead
    # (``Intermediate.distributed``)
    distributed: bool = False
    test_only: bool = False  # a target of the test suite, not of users
    raise_function: str | None = None  # fails a query with a message; None: a failing cast
    materializes: bool = False  # takes ``WITH name AS [NOT] MATERIALIZED``
    nan_equals_itself: bool = False  # ``isnan(x)`` is ``x = 'NaN'``
    isinf_function: str | None = None  # ``isinf(x)``; None: ``ABS(x) = <infinity>``
    infinity: str = "Infinity"  # the text it casts to +infinity
    series_sets_rows: bool = False  # ``UNNEST(RANGE(a, b))`` is ``generate_series`` alone
    null_safe_binds_loosely: bool = False  # ``a IS [NOT] DISTINCT FROM b`` needs parentheses
    range_function: str | None = None  # ``UNNEST(RANGE(a, b))`` is ``UNNEST(<it>(a, b))`` (arrayJoin)
    unsigned_integers: bool = False  # counts, row numbers, ranks and ABS of an integer are unsigned
    plans_constants: bool = False  # computes a constant expression while planning, in any CASE branch
    keeps_qualifiers: bool = False  # a subquery's column ``t.x`` is not named ``x``: aliased ``AS x``
    number_words: tuple[str, ...] = ()  # names it reads as numbers (``nan``) unless quoted
    settings: tuple[tuple[str, int | str], ...] = ()  # the statement's SETTINGS clause
    uuid_function: str | None = None  # ``uuid()`` (a state's id), where sqlglot writes a name it does not know

    @property
    def portable(self) -> bool:
        """Whether the statement keeps to the SQL every engine shares: no DuckDB
        aggregate, no integer division (which truncates there)."""
        return not self.native


# ClickHouse's settings the statement needs (see the module docstring)
CLICKHOUSE_SETTINGS = (
    ("prefer_column_name_to_alias", 1),
    ("join_use_nulls", 1),
    ("aggregate_functions_null_for_empty", 1),
    ("short_circuit_function_evaluation", "enable"),
    ("query_plan_max_optimizations_to_apply", 1000000),
)

_RECORDS = (
    Dialect("duckdb", "duckdb", native=True, materializes=True),
    Dialect("spark", "spark", distributed=True, raise_function="raise_error"),
    Dialect("trino", "trino", distributed=True, raise_function="fail", isinf_function="is_infinite"),
    Dialect("bigquery", "bigquery", distributed=True, raise_function="ERROR", isinf_function="IS_INF"),
    Dialect("snowflake", "snowflake", distributed=True, nan_equals_itself=True, infinity="inf"),
    Dialect("postgres", "postgres", materializes=True, nan_equals_itself=True, series_sets_rows=True),
    Dialect(
        "clickhouse",
        "clickhouse",
        isinf_function="isInfinite",
        range_function="range",
        unsigned_integers=True,
        plans_constants=True,
        keeps_qualifiers=True,
        number_words=("nan", "inf", "infinity"),
        settings=CLICKHOUSE_SETTINGS,
        uuid_function="generateUUIDv4",
    ),
    # DataFusion's raise is the test suite's UDF
    Dialect(
        "datafusion", "duckdb", distributed=True, test_only=True, raise_function="error", null_safe_binds_loosely=True
    ),
)
_BY_NAME = {record.name: record for record in _RECORDS}
DIALECTS = tuple(record.name for record in _RECORDS if not record.test_only)


def dialect_named(name: str) -> Dialect:
    """The record of dialect ``name`` (a test target too), or an error listing the
    dialects users may ask for."""
    if name not in _BY_NAME:
        check_dialect(name)
    return _BY_NAME[name]


def check_dialect(name: str) -> None:
    """Raise for a ``dialect=`` users may not ask for."""
    if name not in DIALECTS:
        raise InvalidParameterError(f"dialect must be one of {', '.join(map(repr, DIALECTS))}, got {name!r}")


def transpile(sql: str, name: str) -> str:
    """``sql`` (DuckDB's dialect, as composed) written for dialect ``name``. DuckDB gets the
    statement as composed; any other dialect the statement sqlglot writes, or an
    ``UnsupportedInDialectError`` naming the steps (``m_<metric>`` for a metric's own)
    that the dialect cannot express."""
    target = dialect_named(name)
    if target.native:
        return sql
    tree = rewritten(sqlglot.parse_one(sql, read="duckdb"), target)
    try:
        return tree.sql(dialect=target.writer, pretty=True, unsupported_level=ErrorLevel.RAISE)
    except SqlglotError as error:
        raise UnsupportedInDialectError(_unsupported_message(tree, target, error)) from None


def rewritten(tree: exp.Expression, target: Dialect) -> exp.Expression:
    """``tree`` with the rewrites of the module docstring applied for ``target``: a copy,
    ``tree`` itself left as it is (the dbt package writes one parse for every dialect)."""
    tree = _unique_inner_ctes(tree.transform(lambda node: _rewrite(node, target), copy=True))
    if target.unsigned_integers:
        _signed_integers(tree)
    if target.keeps_qualifiers:
        _named_projections(tree)
    if target.settings:
        tree.set("settings", [_setting(name, value) for name, value in target.settings])
    return tree


_UNSIGNED = (exp.Count, exp.RowNumber, exp.Rank, exp.DenseRank, exp.Ntile)


def _signed_integers(tree: exp.Expression) -> None:
    """Every count, row number and rank cast to BIGINT, and ``ABS(x)`` written
    ``GREATEST(x, -x)``: ClickHouse's are UInt64 (ABS of an integer too), which has no
    common type with a signed integer, so a CASE or COALESCE mixing them fails."""
    for node in list(tree.find_all(*_UNSIGNED)):
        counted = node.parent if isinstance(node.parent, exp.Window) else node
        counted.replace(exp.cast(counted.copy(), exp.DataType.build("BIGINT")))
    for node in list(tree.find_all(exp.Abs)):
        node.replace(exp.Greatest(this=node.this.copy(), expressions=[exp.Neg(this=exp.paren(node.this.copy()))]))


def _named_projections(tree: exp.Expression) -> None:
    """Each qualified column of a select list (``t.x``) aliased to its name (``AS x``)."""
    for select in tree.find_all(exp.Select):
        for i, projection in enumerate(select.expressions):
            if isinstance(projection, exp.Column) and projection.table and not projection.is_star:
                select.expressions[i] = exp.alias_(projection, projection.name, copy=False)
                select.expressions[i].parent = select


def _setting(name: str, value: int | str) -> exp.Expression:
    literal = exp.Literal.number(value) if isinstance(value, int) else exp.Literal.string(value)
    return exp.EQ(this=exp.column(name), expression=literal)


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


def _rewrite(node: exp.Expression, target: Dialect) -> exp.Expression:
    if isinstance(node, exp.Anonymous) and node.name.lower() == "error":
        return _raise(rewritten(node.expressions[0], target), target)  # transform skips a new node's children
    if isinstance(node, exp.IsNan) and target.nan_equals_itself:
        return exp.EQ(this=node.this, expression=_special("NaN"))
    if isinstance(node, exp.IsInf):
        if target.isinf_function:
            return exp.Anonymous(this=target.isinf_function, expressions=[rewritten(node.this, target)])
        return exp.EQ(this=exp.Abs(this=node.this), expression=_special(target.infinity))
    if isinstance(node, exp.Explode) and target.series_sets_rows and isinstance(node.this, exp.GenerateSeries):
        return node.this  # a set-returning function already (sqlglot writes UNNEST(GENERATE_SERIES))
    if isinstance(node, exp.Uuid) and target.uuid_function:
        return exp.Anonymous(this=target.uuid_function, expressions=[])
    if isinstance(node, exp.Identifier) and node.name.lower() in target.number_words:
        node.set("quoted", True)
    if isinstance(node, exp.GenerateSeries) and target.range_function:
        return _range(node, target)
    if isinstance(node, exp.CTE) and node.args.get("materialized") is not None and not target.materializes:
        node.set("materialized", None)
    if isinstance(node, (exp.NullSafeEQ, exp.NullSafeNEQ)) and target.null_safe_binds_loosely:
        operands = {key: rewritten(node.args[key], target) for key in ("this", "expression")}
        return exp.Paren(this=type(node)(**operands))  # transform skips a new node's children
    if isinstance(node, exp.Window):
        for ordered in node.find_all(exp.Ordered):
            ordered.set("nulls_first", _default_nulls_first(target, bool(ordered.args.get("desc"))))
    return node


def _range(series: exp.GenerateSeries, target: Dialect) -> exp.Expression:
    """``RANGE(a, b)`` as ``range(a, COALESCE(b, a))``: ClickHouse's refuses a NULL end,
    for which DuckDB's is empty (the templates' starts are literals); a literal end as it is."""
    start, end = (rewritten(series.args[key], target) for key in ("start", "end"))
    if not series.args.get("is_end_exclusive"):
        end = exp.Add(this=end, expression=exp.Literal.number(1))
    if not isinstance(end, exp.Literal):  # a literal end is never NULL (the bootstrap's replicates)
        end = exp.Coalesce(this=end, expressions=[start.copy()])
    return exp.Anonymous(this=target.range_function, expressions=[start, end])


def _raise(message: exp.Expression, target: Dialect) -> exp.Expression:
    if target.raise_function is None:  # fails with the message quoted in the cast's error
        if target.plans_constants:  # a constant message would be cast, and fail, while planning
            message = exp.Anonymous(this="materialize", expressions=[message])
        # not nullable: ClickHouse casts a string to Nullable(Int32) as NULL, without failing
        return exp.cast(message, exp.DataType.build("INT", nullable=False))
    return exp.Anonymous(this=target.raise_function, expressions=[message])


def _special(text: str) -> exp.Expression:
    return exp.cast(exp.Literal.string(text), exp.DataType.Type.DOUBLE)


def _default_nulls_first(target: Dialect, desc: bool) -> bool:
    """Whether ``target`` puts NULLs first by default (so sqlglot writes no NULLS clause)."""
    ordering = SqlglotDialect.get_or_raise(target.writer).NULL_ORDERING
    if ordering == "nulls_are_last":
        return False
    return desc if ordering == "nulls_are_large" else not desc


def _unsupported_message(tree: exp.Expression, target: Dialect, error: SqlglotError) -> str:
    """Which steps of the statement ``target`` cannot express, and sqlglot's reason."""
    failing = []
    for cte in tree.find_all(exp.CTE):
        try:
            cte.this.sql(dialect=target.writer, unsupported_level=ErrorLevel.RAISE)
        except SqlglotError:
            failing.append(cte.alias)
    metrics = [name.removeprefix("m_") for name in failing if name.startswith("m_")]
    what = f"metric(s) {', '.join(metrics)}" if metrics else f"step(s) {', '.join(failing) or 'of the statement'}"
    reason = str(error).strip().splitlines()[0]
    return f"{what} cannot be rendered for {target.name}: {reason}"
