"""A user's own DuckDB connection (``con=``): whatever its settings, every face of the
library gives the numbers (and the slice order) of a default connection, and the
connection is left exactly as it was found: its registered objects, views, tables,
settings and an unfinished result of its own."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

import sqlmetrics as sm

# --- the connection is left as it was found ------------------------------------------

FRAME = pl.DataFrame({"y": [0, 1, 0, 1, 1, 0], "s": [0.1, 0.2, 0.3, 0.4, 0.35, 0.8]})
# 9 positive-negative pairs, 5 ordered right (0.2 > 0.1; 0.4 > 0.1, 0.3; 0.35 > 0.1, 0.3)
AUC = 5 / 9
PENDING_ROWS = 5000  # more than one fetch's chunk: the result is still being read


def _state(con: duckdb.DuckDBPyConnection) -> tuple:
    """What a user can see of the connection: its settings, its views (registered objects
    among them) and tables, temporary or not, and what each registered object holds."""
    settings = con.execute("SELECT name, value FROM duckdb_settings() ORDER BY name").fetchall()
    views = con.execute(
        "SELECT database_name, schema_name, view_name, temporary, sql FROM duckdb_views() WHERE NOT internal ORDER BY ALL"
    ).fetchall()
    tables = con.execute("SELECT database_name, schema_name, table_name, temporary FROM duckdb_tables() ORDER BY ALL").fetchall()
    return settings, views, tables


def _user_connection() -> duckdb.DuckDBPyConnection:
    """A connection holding what a user may have made, under the names sqlmetrics once used."""
    con = duckdb.connect()
    con.execute("SET integer_division = true")  # a setting of the session
    con.register("sqlmetrics_source", pl.DataFrame({"mine": [1, 2, 3]}))
    con.execute("CREATE VIEW sqlmetrics_judgments AS SELECT 42 AS mine")
    con.execute("CREATE TEMP VIEW sqlmetrics_class_scores AS SELECT 43 AS mine")
    con.register("impressions_frame", FRAME)
    con.execute("CREATE TABLE impressions AS SELECT * FROM impressions_frame")
    con.execute("CREATE TEMP TABLE impressions_temp AS SELECT * FROM impressions_frame")
    con.execute("CREATE TEMP VIEW impressions_temp_view AS SELECT * FROM impressions_frame")
    con.execute("CREATE VIEW impressions_view AS SELECT * FROM impressions")
    return con


SOURCES = {
    "a frame": FRAME,
    "a table": "impressions",
    "a view": "impressions_view",
    "a temporary table": "impressions_temp",
    "a temporary view": "impressions_temp_view",
    "a registered frame": "impressions_frame",
}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_the_users_objects_views_and_settings_are_left_as_they_were(source):
    con = _user_connection()
    before = _state(con)
    auc = sm.evaluate(SOURCES[source], ["auc"], label="y", score="s", con=con)["auc"].item()
    assert auc == pytest.approx(AUC, abs=1e-12)
    assert _state(con) == before
    assert con.execute("SELECT * FROM sqlmetrics_source").fetchall() == [(1,), (2,), (3,)]
    assert con.execute("SELECT * FROM sqlmetrics_judgments, sqlmetrics_class_scores").fetchall() == [(42, 43)]
    assert con.execute("SELECT 1 / 2").fetchall() == [(0,)]  # integer_division still on


def test_the_users_objects_are_left_after_every_face():
    con = _user_connection()
    before = _state(con)
    qrels = pl.DataFrame({"q": [1, 1], "item": ["a", "b"], "rel": [1, 0]})
    run = pl.DataFrame({"q": [1, 1], "item": ["a", "b"], "score": [0.9, 0.1]})
    sm.evaluate(run, ["ndcg"], label="rel", score="score", query="q", item="item", judgments=qrels, con=con)
    sm.compare(FRAME.with_columns(t=pl.col("s") ** 2), ["auc"], scores=("s", "t"), label="y", con=con)
    sm.roc_curve(FRAME, label="y", score="s", con=con)
    sm.confusion_matrix(FRAME, label="y", prediction="y", con=con)
    assert _state(con) == before


@pytest.mark.parametrize("source", ["a frame", "a table", "a view"])
def test_an_unfinished_result_of_the_user_is_still_there_to_fetch(source):
    con = _user_connection()
    con.execute(f"SELECT * FROM range({PENDING_ROWS})")
    auc = sm.evaluate(SOURCES[source], ["auc"], label="y", score="s", con=con)["auc"].item()
    assert auc == pytest.approx(AUC, abs=1e-12)
    assert con.fetchall() == [(i,) for i in range(PENDING_ROWS)]


@pytest.mark.skipif(
    int(duckdb.__version__.split(".")[0]) < 2,
    reason="DuckDB 1 discards an unfinished result at any other work on its connection, and cannot tell it is there",
)
@pytest.mark.parametrize("source", ["a temporary table", "a temporary view", "a registered frame"])
def test_a_temporary_source_next_to_an_unfinished_result_is_refused_and_the_result_kept(source):
    # only the connection itself reads its temporary objects, and reading one would discard
    # the result the user has not fetched yet
    con = _user_connection()
    con.execute(f"SELECT * FROM range({PENDING_ROWS})")
    with pytest.raises(sm.SourceError, match=rf"'{SOURCES[source]}'.*unfinished result.*fetch"):
        sm.evaluate(SOURCES[source], ["auc"], label="y", score="s", con=con)
    assert con.fetchall() == [(i,) for i in range(PENDING_ROWS)]


def test_an_unknown_table_is_still_named():
    with pytest.raises(sm.SourceError, match="no table or view named 'nowhere'"):
        sm.evaluate("nowhere", ["auc"], label="y", score="s", con=_user_connection())
