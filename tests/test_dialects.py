"""sm.to_sql for every dialect: bad input, quoting of table names, the error for a
metric a dialect cannot express, and the rewrites of dialects.py."""

from __future__ import annotations

import pytest
import sqlglot

import sqlmetrics as sm
from sqlmetrics.dialects import DIALECTS, transpile

ROLES = {"label": "click", "score": "pctr", "by": "day"}


def test_unknown_dialect_lists_the_supported_ones():
    with pytest.raises(sm.InvalidParameterError) as error:
        sm.to_sql(["auc"], source="t", dialect="oracle", **ROLES)
    assert "'oracle'" in str(error.value)
    assert all(repr(d) in str(error.value) for d in DIALECTS)


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("duckdb", '"catalog"."schema"."we""ird"'),
        ("postgres", '"catalog"."schema"."we""ird"'),
        ("trino", '"catalog"."schema"."we""ird"'),
        ("snowflake", '"catalog"."schema"."we""ird"'),
        ("spark", '`catalog`.`schema`.`we"ird`'),
        ("bigquery", '`catalog`.`schema`.`we"ird`'),
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
def test_hostile_column_names_stay_names(dialect):
    sql = sm.to_sql(["auc"], source="t", label='x") AS label FROM t; DROP TABLE t; --', score="pctr", dialect=dialect)
    assert len(sqlglot.parse(sql, read=dialect)) == 1


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
