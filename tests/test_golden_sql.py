"""Trino, BigQuery and Snowflake have no engine in the test run: the SQL written for
them is pinned per metric in ``tests/golden/<dialect>/<metric>.sql`` (each file read by
eye once when it was written), and each must parse back with sqlglot in its dialect.

After a deliberate change to a template or to ``dialects.py``, rewrite the files with
``SQLMETRICS_UPDATE_GOLDEN=1 pytest tests/test_golden_sql.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sqlglot
from sqlglot.errors import ErrorLevel

import sqlmetrics as sm

GOLDEN = Path(__file__).resolve().parent / "golden"
DIALECTS = ("trino", "bigquery", "snowflake")
UPDATE = os.environ.get("SQLMETRICS_UPDATE_GOLDEN") == "1"


def rendered(name: str, dialect: str) -> str:
    """The metric alone, sliced by two columns of a dotted table, weighted where it takes weights."""
    spec = sm.registry()[name]
    roles = {"label": "label", "score": "score", "by": ["day", "country"]}
    if spec.weighted:
        roles["weight"] = "weight"
    if "query" in spec.needs:
        roles["query"] = "user_id"
    if spec.family == "multiclass":
        roles.pop("score")
        if "class_scores" in spec.needs:
            roles["class_scores"] = {"cat": "p_cat", "dog": "p_dog", "fox": "p_fox"}
        else:
            roles["prediction"] = "predicted"
    metric = sm.metric(name.replace("@k", "@10"))
    return sm.to_sql([metric], source="logs.impressions", dialect=dialect, **roles) + "\n"


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", sorted(sm.registry()))
def test_rendered_sql_matches_the_reviewed_file(name, dialect):
    path = GOLDEN / dialect / f"{name.replace('@', '_at_')}.sql"
    sql = rendered(name, dialect)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sql)
    assert path.read_text() == sql


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", sorted(sm.registry()))
def test_rendered_sql_parses_back(name, dialect):
    sqlglot.parse_one(rendered(name, dialect), read=dialect, error_level=ErrorLevel.RAISE)
