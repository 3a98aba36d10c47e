"""sm.to_sql for every dialect: bad input, quoting of table names, the error for a
metric a dialect cannot express, and the rewrites of dialects.py."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot.dialects.dialect import Dialect as SqlglotDialect

import sqlmetrics as sm
from sqlmetrics.registry import resolve
from sqlmetrics.sqltext.dialects import DIALECTS, dialect_named, transpile

ROLES = {"label": "click", "score": "pctr", "by": "day"}


def test_unknown_dialect_lists_the_supported_ones():
    with pytest.raises(sm.InvalidParameterError) as error:
        sm.to_sql(["auc"], source="t", dialect="oracle", **ROLES)
    assert "'oracle'" in str(error.value)
    assert all(repr(d) in str(error.value) for d in DIALECTS)


def test_each_dialect_is_one_record_under_its_name():
    """The facts of a dialect are read from its record: one per name, written by a dialect
    sqlglot knows; the test suite's DataFusion has one too but is not offered to users."""
    for name in (*DIALECTS, "datafusion"):
        record = dialect_named(name)
        assert record.name == name
        assert SqlglotDialect.get_or_raise(record.writer)
    assert dialect_named("datafusion").test_only and "datafusion" not in DIALECTS
    with pytest.raises(sm.InvalidParameterError, match="dialect must be one of"):
        dialect_named("oracle")


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("duckdb", '"catalog"."schema"."we""ird"'),
        ("postgres", '"catalog"."schema"."we""ird"'),
        ("trino", '"catalog"."schema"."we""ird"'),
        ("snowflake", '"catalog"."schema"."we""ird"'),
        ("spark", '`catalog`.`schema`.`we"ird`'),
        ("bigquery", '`catalog`.`schema`.`we"ird`'),
        ("clickhouse", '"catalog"."schema"."we""ird"'),
    ],
)
def test_dotted_table_name_with_a_quote_is_quoted_part_by_part(dialect, expected):
    sql = sm.to_sql(["auc"], source='catalog.schema.we"ird', dialect=dialect, **ROLES)
    assert f"FROM {expected}" in sql
    table = next(t for t in sqlglot.parse_one(sql, read=dialect).find_all(sqlglot.exp.Table) if t.catalog)
    assert (table.catalog, table.db, table.name) == ("catalog", "schema", 'we"ird')


@pytest.mark.parametrize("dialect", [d for d in DIALECTS if d != "duckdb"])
def test_other_dialects_read_a_table_not_a_path_or_frame(dialect):
    with pytest.raises(sm.SourceError, match="reads a table or view"):
        sm.to_sql(["auc"], source="logs/*.parquet", dialect=dialect, **ROLES)


def test_a_metric_the_dialect_cannot_express_is_named():
    # DuckDB's top-k aggregate max(x, k) has no Spark form: the metric's step names it
    sql = "WITH m_auc AS (SELECT max(score, 3) AS auc FROM t) SELECT auc FROM m_auc"
    with pytest.raises(sm.UnsupportedInDialectError, match="metric\\(s\\) auc cannot be rendered for spark"):
        transpile(sql, "spark")


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "name",
    [
        'x") AS label FROM t; DROP TABLE t; --',
        'x\\") AS label FROM t; DROP TABLE t; --',  # a backslash: ClickHouse's escape
        "x`) AS label FROM t; DROP TABLE t; --",  # Spark's and BigQuery's quote
    ],
)
def test_hostile_column_names_stay_names(dialect, name):
    sql = sm.to_sql(["auc"], source="t", label=name, score="pctr", dialect=dialect)
    (tree,) = sqlglot.parse(sql, read=dialect)
    assert name in {identifier.name for identifier in tree.find_all(sqlglot.exp.Identifier)}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_names_holding_newlines_are_rendered_unchanged(dialect):
    names = {"label": "y\nz", "score": "s\r\n  t", "query": "q\n  r"}
    sql = sm.to_sql(["auc", "gauc", "ndcg@10"], source="t", dialect=dialect, **names)
    (tree,) = sqlglot.parse(sql, read=dialect)
    identifiers = {identifier.name for identifier in tree.find_all(sqlglot.exp.Identifier)}
    assert set(names.values()) <= identifiers
    assert not {"y\n  z", "s\r\n    t", "q\n    r"} & identifiers


REFUSALS = [
    ("spark", "RAISE_ERROR("),
    ("trino", "FAIL("),
    ("bigquery", "ERROR("),
    ("postgres", "AS INT)"),
    ("snowflake", "AS INT)"),
]


@pytest.mark.parametrize(("dialect", "raises"), REFUSALS)
def test_bad_data_is_refused_in_every_dialect(dialect, raises):
    assert raises in sm.to_sql(["auc"], source="t", dialect=dialect, **ROLES)


def test_nested_steps_of_two_metrics_do_not_clash_when_lifted():
    metrics = ["f1", sm.multiclass_f1(average="weighted")]
    sql = sm.to_sql(metrics, source="t", label="y", prediction="p", dialect="spark")
    names = [cte.alias for cte in sqlglot.parse_one(sql, read="spark").find_all(sqlglot.exp.CTE)]
    assert len(names) == len(set(names)) and "m_f1_scores" in names and "m_f1_weighted_scores" in names


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_step_says_what_it_is_in_every_dialect(dialect):
    # a step's nested steps (m_gauc's totals, per_query; the distributed score_cum's ranges,
    # bucketed, above) are lifted to the top level for some dialects (m_gauc_totals,
    # score_cum_ranges, ...), before the step: its header then rides on the first of them
    calls = resolve(["auc", "gauc", "logloss", "precision", "ndcg@10", "mrr", "mae"])
    sql = sm.to_sql(calls, source="logs.impressions", dialect=dialect, **ROLES, query="user")
    tree = sqlglot.parse_one(sql, read=dialect)
    steps = tree.args["with_"].expressions
    names = [cte.alias for cte in steps]
    own: dict[str, list] = {}
    for i, cte in enumerate(steps):
        step = next((later for later in names[i + 1 :] if cte.alias.startswith(f"{later}_")), cte.alias)
        own.setdefault(step, []).append(cte)
    assert {f"m_{call.column}" for call in calls} <= set(own)
    assert "score_cum" in own and "input" in own
    uncommented = [step for step, ctes in own.items() if not _commented(ctes[0])]
    assert not uncommented, f"{dialect}: {uncommented} have no comment"
    assert [c.strip() for c in tree.comments] == ["the result: one row per slice, every metric joined by slice"]


def _commented(cte: sqlglot.exp.CTE) -> bool:
    """Whether the step, or the first of its own nested steps, starts with a comment."""
    nested = cte.this.args.get("with_")
    return bool(cte.this.comments or (nested and (nested.comments or nested.expressions[0].this.comments)))


# Each rewrite of ``dialects.py`` as a table, input (DuckDB, as composed) -> expected per
# dialect (whitespace collapsed): sqlglot's own style of dialect tests.
CASE_ERROR = "SELECT CASE WHEN x > 0 THEN error('sqlmetrics: bad') END AS failure FROM t"
# every ClickHouse statement ends with the settings it needs (dialects.CLICKHOUSE_SETTINGS)
CH = (
    " SETTINGS prefer_column_name_to_alias = 1, join_use_nulls = 1, aggregate_functions_null_for_empty = 1,"
    " short_circuit_function_evaluation = 'enable', query_plan_max_optimizations_to_apply = 1000000"
)
REWRITES = [
    # a cast that fails (to a Nullable integer it would give NULL), of a message ClickHouse
    # cannot compute while planning (a constant one would fail whatever the condition)
    (
        CASE_ERROR,
        "clickhouse",
        "SELECT CASE WHEN x > 0 THEN CAST(materialize('sqlmetrics: bad') AS Int32) END AS failure FROM t" + CH,
    ),
    ("SELECT isinf(x) AS a, isnan(x) AS b FROM t", "clickhouse", "SELECT isInfinite(x) AS a, isNaN(x) AS b FROM t" + CH),
    ("SELECT UNNEST(RANGE(0, n + 1)) AS j FROM t", "clickhouse", "SELECT arrayJoin(range(0, COALESCE(n + 1, 0))) AS j FROM t" + CH),
    # counts and ranks signed (ClickHouse's UInt64 has no common type with Int64), ABS too
    (
        "SELECT COUNT(*) AS n, ROW_NUMBER() OVER (ORDER BY x) AS r, ABS(x - y) AS d FROM t",
        "clickhouse",
        "SELECT CAST(COUNT(*) AS Nullable(Int64)) AS n, CAST(ROW_NUMBER() OVER (ORDER BY x) AS Nullable(Int64)) AS r,"
        " GREATEST(x - y, -( x - y )) AS d FROM t" + CH,
    ),
    # a qualified column named as itself; nan a name, not a number
    ("SELECT a.s, b.q AS q, a.* FROM a JOIN b ON a.s = b.s", "clickhouse", "SELECT a.s AS s, b.q AS q, a.* FROM a JOIN b ON a.s = b.s" + CH),
    ("SELECT nan.n FROM (SELECT 1 AS n) AS nan", "clickhouse", 'SELECT "nan".n AS n FROM ( SELECT 1 AS n ) AS "nan"' + CH),
    (CASE_ERROR, "spark", "SELECT CASE WHEN x > 0 THEN RAISE_ERROR('sqlmetrics: bad') END AS failure FROM t"),
    (CASE_ERROR, "trino", "SELECT CASE WHEN x > 0 THEN FAIL('sqlmetrics: bad') END AS failure FROM t"),
    (CASE_ERROR, "bigquery", "SELECT CASE WHEN x > 0 THEN ERROR('sqlmetrics: bad') END AS failure FROM t"),
    (CASE_ERROR, "snowflake", "SELECT CASE WHEN x > 0 THEN CAST('sqlmetrics: bad' AS INT) END AS failure FROM t"),
    (CASE_ERROR, "postgres", "SELECT CASE WHEN x > 0 THEN CAST('sqlmetrics: bad' AS INT) END AS failure FROM t"),
    (CASE_ERROR, "datafusion", "SELECT CASE WHEN x > 0 THEN ERROR('sqlmetrics: bad') END AS failure FROM t"),
    ("SELECT isnan(x) AS a FROM t", "spark", "SELECT ISNAN(x) AS a FROM t"),
    ("SELECT isnan(x) AS a FROM t", "snowflake", "SELECT x = CAST('NaN' AS DOUBLE) AS a FROM t"),
    ("SELECT isnan(x) AS a FROM t", "postgres", "SELECT x = CAST('NaN' AS DOUBLE PRECISION) AS a FROM t"),
    ("SELECT isinf(x) AS a FROM t", "trino", "SELECT IS_INFINITE(x) AS a FROM t"),
    ("SELECT isinf(x) AS a FROM t", "bigquery", "SELECT IS_INF(x) AS a FROM t"),
    ("SELECT isinf(x) AS a FROM t", "spark", "SELECT ABS(x) = CAST('Infinity' AS DOUBLE) AS a FROM t"),
    ("SELECT isinf(x) AS a FROM t", "snowflake", "SELECT ABS(x) = CAST('inf' AS DOUBLE) AS a FROM t"),
    ("SELECT isinf(x) AS a FROM t", "postgres", "SELECT ABS(x) = CAST('Infinity' AS DOUBLE PRECISION) AS a FROM t"),
    ("SELECT UNNEST(RANGE(0, n + 1)) AS j FROM t", "postgres", "SELECT GENERATE_SERIES(0, n + 1 - 1) AS j FROM t"),
    ("SELECT UNNEST(RANGE(0, n + 1)) AS j FROM t", "datafusion", "SELECT UNNEST(RANGE(0, n + 1)) AS j FROM t"),
    (
        "WITH base AS MATERIALIZED (SELECT x FROM t) SELECT x FROM base",
        "postgres",
        "WITH base AS MATERIALIZED ( SELECT x FROM t ) SELECT x FROM base",
    ),
    (
        "WITH base AS MATERIALIZED (SELECT x FROM t) SELECT x FROM base",
        "trino",
        "WITH base AS ( SELECT x FROM t ) SELECT x FROM base",
    ),
    (
        "WITH m_a AS (WITH scores AS (SELECT x FROM t) SELECT x FROM scores) SELECT x FROM m_a",
        "spark",
        "WITH m_a_scores AS ( SELECT x FROM t ), m_a AS ( SELECT x FROM m_a_scores AS scores ) SELECT x FROM m_a",
    ),
    (
        "WITH m_a AS (WITH scores AS (SELECT x FROM t) SELECT x FROM scores) SELECT x FROM m_a",
        "trino",
        "WITH m_a AS ( WITH m_a_scores AS ( SELECT x FROM t ) SELECT x FROM m_a_scores AS scores ) SELECT x FROM m_a",
    ),
    (
        "SELECT a.s IS NOT DISTINCT FROM b.s AND a.q = b.q AS same FROM a, b",
        "datafusion",
        "SELECT ( a.s IS NOT DISTINCT FROM b.s ) AND a.q = b.q AS same FROM a, b",
    ),
    (
        "SELECT a.s IS NOT DISTINCT FROM b.s AND a.q = b.q AS same FROM a, b",
        "postgres",
        "SELECT a.s IS NOT DISTINCT FROM b.s AND a.q = b.q AS same FROM a, b",
    ),
    # windows keep the target's default NULL order (sqlglot would spell DuckDB's:
    # NULLS LAST for Spark ascending, Snowflake and PostgreSQL descending)
    *(
        (
            "SELECT SUM(w) OVER (PARTITION BY s ORDER BY score) AS c, SUM(w) OVER (ORDER BY score DESC) AS d FROM t",
            dialect,
            "SELECT SUM(w) OVER (PARTITION BY s ORDER BY score) AS c, SUM(w) OVER (ORDER BY score DESC) AS d FROM t",
        )
        for dialect in ("spark", "trino", "bigquery", "snowflake", "postgres")
    ),
]


@pytest.mark.parametrize(("duckdb_sql", "dialect", "expected"), REWRITES)
def test_each_rewrite_writes_the_expected_sql(duckdb_sql, dialect, expected):
    assert " ".join(transpile(duckdb_sql, dialect).split()) == expected
