"""A user's own DuckDB connection (``con=``): whatever its settings, every face of the
library gives the numbers (and the slice order) of a default connection, and the
connection is left exactly as it was found: its registered objects, views, tables,
settings and an unfinished result of its own."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

import duckdb
import polars as pl
import pytest

import sqlmetrics as sm

from sql_engines import (
    COMPOSED,
    REGISTRY,
    assert_same_numbers,
    call_for,
    impressions,
    long_class_scores,
    run_and_qrels,
)

# The settings a user may have changed, each away from its default, each able to change a
# result: integer division truncates 1/2 to 0; the default order and NULL order reorder
# slices and any window whose ORDER BY leaves them implicit; one thread and no insertion
# order change the order rows reach an aggregate; a low memory limit makes DuckDB spill.
HOSTILE_SETTINGS = {
    "integer_division": "true",
    "default_null_order": "'nulls_first'",
    "default_order": "'desc'",
    "threads": "1",
    "memory_limit": "'200MB'",
    "preserve_insertion_order": "false",
}

TABLES = ("src", "run", "qrels", "class_scores")

# A vector worked by hand. auc: of 9 positive-negative pairs, 5 ordered right (0.2 > 0.1;
# 0.4 > 0.1, 0.3; 0.35 > 0.1, 0.3). average precision: down the scores 0.8(-) 0.4(+)
# 0.35(+) 0.3(-) 0.2(+) 0.1(-), the precision at each positive: 1/2, 2/3, 3/5.
FRAME = pl.DataFrame({"y": [0, 1, 0, 1, 1, 0], "s": [0.1, 0.2, 0.3, 0.4, 0.35, 0.8]})
# 9 positive-negative pairs, 5 ordered right (0.2 > 0.1; 0.4 > 0.1, 0.3; 0.35 > 0.1, 0.3)
AUC = 5 / 9
AVERAGE_PRECISION = (1 / 2 + 2 / 3 + 3 / 5) / 3


def _data() -> dict[str, pl.DataFrame]:
    frame = impressions(11).with_columns(
        score2=((pl.col("score") * 7 + pl.col("row_id") % 5 / 10) % 1.0).round(2),
        arm=pl.when(pl.col("row_id") % 3 == 0).then(pl.lit("v1")).otherwise(pl.lit("v2")),
    )
    run, qrels = run_and_qrels(12)
    return {"src": frame, "run": run, "qrels": qrels, "class_scores": long_class_scores(frame)}


DATA = _data()


def _registry_groups() -> dict[str, tuple[list, dict]]:
    """Every registered metric, in one call per set of roles (composition changes no
    number: tests/test_invariants.py), weighted where the metric takes a weight."""
    groups: dict[str, tuple[list, dict]] = defaultdict(lambda: ([], {}))
    for name in sorted(REGISTRY):
        metric, roles = call_for(name)
        if not REGISTRY[name].weighted:
            roles.pop("weight", None)
        key = repr(sorted(roles.items()))
        groups[key][0].append(metric)
        groups[key][1].update(roles)
    return dict(groups)


def _long_scores(roles: dict, tables: dict) -> dict:
    """``roles`` with its class scores read from the long table of ``tables``."""
    if "class_scores" not in roles:
        return roles
    return roles | {"class_scores": sm.long_scores(tables["class_scores"], row_id="row_id", class_="class", score="p")}


def _calls() -> dict[str, Callable[[dict, duckdb.DuckDBPyConnection], pl.DataFrame]]:
    """The catalog: each call of every face that runs SQL, reading the tables of ``DATA``
    from the mapping it is given (the frames, or the names of tables of ``con``)."""
    calls: dict[str, Callable] = {}
    for key, (metrics, roles) in _registry_groups().items():
        calls[f"registry {key}"] = lambda t, con, m=metrics, r=roles: sm.evaluate(
            t["src"], m, **_long_scores(r, t), by="s", con=con
        )
    for group, (metrics, roles) in COMPOSED.items():
        calls[f"{group} ci"] = lambda t, con, m=metrics, r=roles: sm.evaluate(
            t["src"], m, **r, by="s", ci=0.95, resamples=20, con=con
        )
    # query=: a row without a query is left out (a used row needs a unit)
    calls["bootstrap ci by query"] = lambda t, con: sm.evaluate(
        t["src"], ["auc", "f1", "logloss"], label="label", score="score", by="s", ci=0.9, ci_method="bootstrap",
        ci_unit="q", query="q", resamples=20, con=con,
    )  # fmt: skip
    calls["run with judgments, ci"] = lambda t, con: sm.evaluate(
        t["run"], ["ndcg@5", "map", "mrr", "recall@5", "rank_corr"], label="rel", score="score", query="q",
        item="item", by="s", judgments=t["qrels"], ci=0.95, con=con,
    )  # fmt: skip
    calls["compare paired"] = lambda t, con: sm.compare(
        t["src"], ["auc", "gauc", "f1", "logloss"], scores=("score", "score2"), label="label", query="q", by="s",
        resamples=20, con=con,
    )  # fmt: skip
    calls["compare arms"] = lambda t, con: sm.compare(
        t["src"], ["auc", "accuracy", "brier", "f1"], arm="arm", baseline="v1", label="label", score="score",
        weight="w", by="s", ci_unit="rows", resamples=20, con=con,
    )  # fmt: skip
    calls["compare paired ranking"] = lambda t, con: sm.compare(
        t["src"], ["ndcg@3", "mrr"], scores=("score", "score2"), label="rel", query="q", item="item", con=con
    )
    for curve in (sm.roc_curve, sm.pr_curve):
        calls[curve.__name__] = lambda t, con, c=curve: c(
            t["src"], label="label", score="score", weight="w", by="s", con=con
        )
    for strategy in ("uniform", "quantile"):
        calls[f"calibration {strategy}"] = lambda t, con, s=strategy: sm.calibration_curve(
            t["src"], label="label", score="score", by="s", bins=4, strategy=s, con=con
        )
    calls["confusion_matrix"] = lambda t, con: sm.confusion_matrix(
        t["src"], label="y", prediction="pred", weight="w", by="s", con=con
    )
    calls["per_class"] = lambda t, con: sm.per_class(
        t["src"], ["precision", "recall", "f1", sm.multiclass_fbeta(beta=2)], label="y", prediction="pred", by="s",
        con=con,
    )  # fmt: skip
    return calls


CALLS = _calls()


def _hostile_connection(scope: str) -> duckdb.DuckDBPyConnection:
    """A connection with ``HOSTILE_SETTINGS``, set for the whole database (``GLOBAL``: its
    cursors have them too) or by a plain ``SET`` (the default scope of each: the session's
    own for integer_division, the database's for threads and memory_limit)."""
    con = duckdb.connect()
    for name, value in HOSTILE_SETTINGS.items():
        con.execute(f"SET {'GLOBAL ' if scope == 'GLOBAL' else ''}{name} = {value}")
    return con


def _as_temp_tables(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    for name in TABLES:
        con.register("staging", DATA[name])
        con.execute(f"CREATE TEMP TABLE {name} AS SELECT * FROM staging")
        con.unregister("staging")
    return {name: name for name in TABLES}


@pytest.fixture(scope="module")
def expected() -> dict[str, pl.DataFrame]:
    con = duckdb.connect()
    return {name: call(DATA, con) for name, call in CALLS.items()}


@pytest.mark.parametrize(
    "scope, tables",
    [
        # settings of the database (every cursor of it has them), frames as sources
        ("GLOBAL", "frames"),
        # settings of the connection's session, its temporary tables as sources (only the
        # connection itself can read them)
        ("SESSION", "temp tables"),
    ],
)
def test_the_whole_catalog_on_a_connection_with_unusual_settings(expected, scope, tables):
    con = _hostile_connection(scope)
    sources = DATA if tables == "frames" else _as_temp_tables(con)
    for name, call in CALLS.items():
        assert_same_numbers(call(sources, con), expected[name], f"{name} ({scope} settings, {tables})")
    assert len(expected) == len(CALLS) > len(COMPOSED) + 10


def test_slices_are_sorted_ascending_with_nulls_last_whatever_the_default_order():
    con = _hostile_connection("GLOBAL")
    frame = FRAME.with_columns(b=pl.Series(["a", None, "b", "a", "b", None]))
    result = sm.evaluate(frame, ["auc"], label="y", score="s", by="b", con=con)
    assert result["b"].to_list() == ["a", "b", None]


@pytest.mark.parametrize("scope", ["GLOBAL", "SESSION"])
def test_integer_division_gives_exact_fractions(scope):
    con = duckdb.connect()
    con.execute(f"SET {'GLOBAL ' if scope == 'GLOBAL' else ''}integer_division = true")
    result = sm.evaluate(FRAME, ["auc", "average_precision"], label="y", score="s", con=con)
    assert result.schema["auc"] == pl.Float64 and result.schema["average_precision"] == pl.Float64
    assert result["auc"].item() == pytest.approx(AUC, abs=1e-12)
    assert result["average_precision"].item() == pytest.approx(AVERAGE_PRECISION, abs=1e-12)


# --- the connection is left as it was found ------------------------------------------

PENDING_ROWS = 5000  # more than one fetch's chunk: the result is still being read


def _state(con: duckdb.DuckDBPyConnection) -> tuple:
    """What a user can see of the connection: its settings, its views (registered objects
    among them) and tables, temporary or not, and what each registered object holds."""
    settings = con.execute("SELECT name, value FROM duckdb_settings() ORDER BY name").fetchall()
    views = con.execute(
        "SELECT database_name, schema_name, view_name, temporary, sql FROM duckdb_views() WHERE NOT internal "
        "ORDER BY ALL"
    ).fetchall()
    tables = con.execute(
        "SELECT database_name, schema_name, table_name, temporary FROM duckdb_tables() ORDER BY ALL"
    ).fetchall()
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


@pytest.mark.engines
def test_a_spark_session_keeps_the_users_temporary_views(spark_session):
    # the engine once registered a frame as the temporary view sqlmetrics_source and then
    # dropped it: a user's own view of that name was replaced, then gone
    users = spark_session.createDataFrame([(1,)], ["x"])
    users.createOrReplaceTempView("sqlmetrics_source")
    frame = impressions(1)
    result = sm.evaluate(frame, ["auc"], label="label", score="score", engine="spark", spark=spark_session)
    assert_same_numbers(result, sm.evaluate(frame, ["auc"], label="label", score="score"), "spark")
    assert spark_session.sql("SELECT x FROM sqlmetrics_source").collect()[0].x == 1
    views = {table.name for table in spark_session.catalog.listTables() if table.isTemporary}
    assert {view for view in views if view.startswith("sqlmetrics")} == {"sqlmetrics_source"}
    spark_session.catalog.dropTempView("sqlmetrics_source")
