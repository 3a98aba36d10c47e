"""The roll-up's statements for a warehouse: ``sm.to_sql(..., state=True)`` builds a part's
state (to INSERT INTO a table of states), ``sm.to_sql(..., rollup=True)`` rolls such a
table up. Run here on DuckDB as an analyst would run them (each part's state INSERTed
into one table, then the roll-up over it): the state statement gives ``sm.state``'s rows,
and the roll-up ``sm.evaluate``'s over the union of the parts (1e-9). What the states
cannot give is refused before a statement is written; states of different calls and a
query held by two states are refused by the statement itself. Spark and PostgreSQL run
the same statements in the engines tier (``tests/test_sql_engines.py``); here every
dialect's statement parses back with sqlglot.
"""

from __future__ import annotations

import duckdb
import polars as pl
import pytest
import sqlglot
from hypothesis import given
from hypothesis import strategies as st
from sqlglot.errors import ErrorLevel
from test_state import PER_QUERY, SUMMED, assert_same_frame, parts_of, split_impressions

import sqlmetrics as sm
from sqlmetrics.errors import InvalidParameterError
from sqlmetrics.sqltext.dialects import DIALECTS

from strategies import AGREEMENT, examples, ranked_impressions, regression_rows

COLUMNS = {"label": "label", "score": "score", "query": "user", "weight": "weight"}


def parts(frame: pl.DataFrame) -> list[pl.DataFrame]:
    """``frame``'s parts (its ``part`` column), or the frame itself when it has no rows."""
    return [frame.filter(part=part) for part in sorted(set(frame["part"].to_list()))] or [frame]


def insert_states(con, frames: list[pl.DataFrame], metrics, **call) -> None:
    """Each frame's state statement run over the frame as the table ``day_rows``, its rows
    INSERTed INTO the table ``states`` (created by the first)."""
    con.execute("DROP TABLE IF EXISTS states")
    for i, frame in enumerate(frames):
        con.register("day_rows", frame)
        statement = sm.to_sql(metrics, source="day_rows", state=True, **call)
        con.execute(("CREATE TABLE states AS\n" if i == 0 else "INSERT INTO states\n") + statement)
        con.unregister("day_rows")


def rolled_up(con, metrics, **call) -> pl.DataFrame:
    return con.sql(sm.to_sql(metrics, source="states", rollup=True, **call)).pl()


def sorted_rows(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(frame.columns, nulls_last=True)


def without_identity(state: pl.DataFrame) -> pl.DataFrame:
    """A state's rows in order, without its id (made when it is built) and source (the
    table ``day_rows`` in SQL, none for ``sm.state`` of a frame)."""
    return sorted_rows(state.drop("state_id", "state_source"))


@given(data=st.data())
@examples(20, AGREEMENT)
def test_the_state_statement_gives_sm_states_rows_and_the_rollup_evaluates(data):
    """Classification metrics of sums and of the score histogram, and gauc: the state
    statement per part gives ``sm.state``'s rows; the roll-up of the table of states, by
    slice and over everything, ``sm.evaluate``'s result over the union."""
    frame = data.draw(split_impressions())
    metrics = [*SUMMED, *PER_QUERY]
    with duckdb.connect() as con:
        for part in parts(frame):
            con.register("day_rows", part)
            statement = sm.to_sql(metrics, source="day_rows", state=True, by=["part", "slice"], **COLUMNS)
            expected = sm.state(part, metrics, by=["part", "slice"], **COLUMNS)
            assert_same_frame(without_identity(con.sql(statement).pl()), without_identity(expected))
        insert_states(con, parts(frame), metrics, by=["part", "slice"], **COLUMNS)
        for by in (["slice"], None, ["part", "slice"]):
            expected = sm.evaluate(frame, metrics, by=by, **COLUMNS)
            assert_same_frame(rolled_up(con, metrics, by=by, **COLUMNS), expected)


@given(data=st.data())
@examples(15, AGREEMENT)
def test_ranking_rollup_statement_evaluates(data):
    frame = data.draw(ranked_impressions(min_rows=1, max_rows=6))
    frame = parts_of(data.draw, frame).with_columns(query=pl.format("{}-{}", "part", "query"))
    columns = {"label": "label", "score": "score", "query": "query", "item": "item"}
    metrics = ["ndcg@3", "mrr", "map", "precision@2"]
    with duckdb.connect() as con:
        insert_states(con, parts(frame), metrics, by="part", **columns)
        assert_same_frame(rolled_up(con, metrics, **columns), sm.evaluate(frame, metrics, **columns))


def test_the_rollup_statement_gives_rollups_intervals_and_a_subset_of_the_metrics():
    frame = pl.DataFrame(
        {
            "day": [1, 1, 1, 1, 2, 2, 2, 2, 2],
            "click": [0, 1, 1, 0, 1, 0, 0, 1, 1],
            "pctr": [0.2, 0.9, 0.4, 0.4, 0.7, 0.1, 0.7, 0.3, 0.8],
            "user": ["a", "a", "b", "b", "c", "c", "d", "d", "d"],
        }
    )
    columns = {"label": "click", "score": "pctr", "query": "user"}
    metrics = ["auc", "logloss", "f1", "gauc"]
    with duckdb.connect() as con:
        insert_states(con, [frame.filter(day=1), frame.filter(day=2)], metrics, by="day", **columns)
        expected = sm.evaluate(frame, metrics, ci=0.9, **columns)
        assert_same_frame(rolled_up(con, metrics, ci=0.9, **columns), expected)
        assert expected["gauc_lo"].item() is not None  # the t over the four users
        assert_same_frame(rolled_up(con, ["auc"], **columns), sm.evaluate(frame, ["auc"], **columns))


@given(data=st.data())
@examples(20, AGREEMENT)
def test_the_regression_rollup_statement_gives_evaluates_intervals(data):
    """The regression means' spread parts, from the state statement per part, merged by
    the roll-up statement: evaluate's intervals over the union."""
    frame = parts_of(data.draw, data.draw(regression_rows()))
    metrics = ["mae", "mse", "rmse", "mape", "mean_error"]
    columns = {"label": "label", "score": "score", "weight": "weight"}
    with duckdb.connect() as con:
        insert_states(con, parts(frame), metrics, by=["part", "slice"], **columns)
        for by in ("slice", None):
            expected = sm.evaluate(frame, metrics, by=by, ci=0.9, **columns)
            assert_same_frame(rolled_up(con, metrics, by=by, ci=0.9, **columns), expected, tolerance=1e-8)


def test_states_of_different_calls_or_none_are_refused_by_the_statement():
    frame = pl.DataFrame({"day": [1, 1, 2, 2], "c": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.3]})
    with duckdb.connect() as con:
        insert_states(con, [frame.filter(day=1)], ["auc"], label="c", score="p", by="day")
        con.register("day_rows", frame.filter(day=2))
        other = sm.to_sql(["auc"], source="day_rows", state=True, label="c", score="p", by="day", weight="c")
        con.execute("INSERT INTO states\n" + other)  # a state of another call: weighted
        with pytest.raises(duckdb.Error, match=r"sqlmetrics: the states are not of one call: their meta rows hold 2 "):
            rolled_up(con, ["auc"], label="c", score="p")
        con.execute("DELETE FROM states WHERE state_part = 'meta'")
        with pytest.raises(duckdb.Error, match=r"their meta rows hold 0 distinct state_meta \(none: not states"):
            rolled_up(con, ["auc"], label="c", score="p")


def test_a_query_in_two_states_is_refused_by_the_statement():
    frame = pl.DataFrame({"day": [1, 1, 2, 2], "c": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.3], "u": ["u7"] * 4})
    call = {"label": "c", "score": "p", "query": "u"}
    with duckdb.connect() as con:
        insert_states(con, [frame.filter(day=1), frame.filter(day=2)], ["gauc"], by="day", **call)
        assert rolled_up(con, ["gauc"], by="day", **call).height == 2  # each user within one day
        with pytest.raises(duckdb.Error, match=r"gauc is a mean over queries.*1 query appears.*e\.g\. query u7"):
            rolled_up(con, ["gauc"], **call)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"state": True, "rollup": True}, "state=True writes a part's state, rollup=True"),
        ({"state": True, "scores": ("p", "p2")}, "state=True and rollup=True write the statements of a roll-up"),
        ({"rollup": True, "arm": "day"}, "state=True and rollup=True write the statements of a roll-up"),
        ({"state": True, "ci": 0.9}, "a state keeps no interval"),
        ({"rollup": True, "ci": 0.9, "ci_method": "bootstrap"}, "which a state does not keep"),
        ({"rollup": True, "ci": 0.9, "ci_unit": "day"}, "which a state does not keep"),
        ({"rollup": True, "judgments": "qrels"}, "judgments= .* the roll-up reads only the states"),
        ({"rollup": True, "class_scores": {0: "p", 1: "p2"}}, "cannot be kept in a state"),
        ({"state": True, "class_scores": {0: "p", 1: "p2"}}, "cannot be kept in a state"),
    ],
)
def test_what_the_states_cannot_give_is_refused(call, message):
    with pytest.raises(InvalidParameterError, match=message):
        sm.to_sql(["auc"], source="logs", label="c", score=None if "class_scores" in call else "p", **call)


def test_metrics_that_do_not_merge_are_refused_as_sm_state_refuses_them():
    for keyword in ("state", "rollup"):
        with pytest.raises(InvalidParameterError, match="median_absolute_error cannot be kept in a state"):
            sm.to_sql(["mae", "median_absolute_error"], source="t", label="y", score="p", **{keyword: True})


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("keyword", ["state", "rollup"])
def test_every_dialects_statement_parses_back(dialect, keyword):
    """Trino, BigQuery and Snowflake have no engine in the test run: their statements must
    at least be SQL of their dialect; each refuses in the dialect's own way."""
    metrics = ["auc", "logloss", "calibration", "f1", "gauc", "ndcg@3"]
    call = {"label": "click", "score": "pctr", "query": "user", "by": ["day", "country"], keyword: True}
    if keyword == "rollup":
        call["by"] = "country"
    sql = sm.to_sql(metrics, source="warehouse.states", dialect=dialect, **call)
    sqlglot.parse_one(sql, read=dialect, error_level=ErrorLevel.RAISE)
    assert "sqlmetrics: " in sql  # the refusals (input rules; states not of one call, queries in two)


def test_a_retried_insert_or_a_copied_state_is_refused_by_the_statement():
    """A daily job retried (its state statement INSERTed twice: each run its own id, one
    for all its rows) doubled n_rows (2202 -> 4404); a state copied within the table (one
    id twice) too. The roll-up statement refuses both, naming the states; with a mean over
    queries, before the queries the repeat holds twice."""
    frame = pl.DataFrame({"day": [1, 1, 2, 2], "c": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.3], "u": ["a", "a", "b", "b"]})
    for metrics, call in (
        (["auc", "logloss"], {"label": "c", "score": "p"}),
        (["gauc"], {"label": "c", "score": "p", "query": "u"}),
    ):
        with duckdb.connect() as con:
            insert_states(con, [frame.filter(day=1), frame.filter(day=2)], metrics, by="day", **call)
            assert_same_frame(rolled_up(con, metrics, **call), sm.evaluate(frame, metrics, **call))
            con.register("day_rows", frame.filter(day=2))
            day = sm.to_sql(metrics, source="day_rows", state=True, by="day", **call)
            con.execute("INSERT INTO states\n" + day)  # the job retried
            with pytest.raises(
                duckdb.Error,
                match=r"sqlmetrics: two states cover the same rows: 1 slice of a source is held by more than "
                r"one state, e\.g\. the states \S+ and \S+ of the source day_rows both hold the slice day=\"2\"\. "
                r"Their rows would be counted twice",
            ):
                rolled_up(con, metrics, **call)
            runs = [con.sql(day).pl()["state_id"].drop_nulls().unique().to_list() for _ in range(2)]
            assert len(runs[0]) == len(runs[1]) == 1 and runs[0] != runs[1]  # an id per run, on all its rows
            con.execute("DELETE FROM states WHERE state_id IS NULL OR state_id <> (SELECT MIN(state_id) FROM states)")
            con.execute("INSERT INTO states SELECT * FROM states")  # one state, copied
            with pytest.raises(
                duckdb.Error,
                match=r"sqlmetrics: 1 state is held more than once .*, e\.g\. the state \S+ \(held 2 ",
            ):
                rolled_up(con, metrics, **call)
