"""Roll-ups (``sm.state``, ``sm.rollup``): for random logs split into random parts, the
roll-up of the parts' states equals ``sm.evaluate`` over the union of their rows, for
every metric that merges, on both engines, coarser slicings included; what does not
merge is refused, naming why.

The reference is ``evaluate`` itself, which every other test compares with scikit-learn,
pytrec_eval and the rest: a roll-up must give its numbers to 1e-9 without the rows.
"""

from __future__ import annotations

import datetime
import json
import math
import re

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import (
    AGREEMENT,
    class_predictions,
    examples,
    impressions,
    ranked_impressions,
    regression_rows,
    run_and_judgments,
)

import sqlmetrics as sm
from sqlmetrics import cli
from sqlmetrics.errors import InvalidInputError, InvalidParameterError, SourceError

SUMMED = [
    "auc", "average_precision", "logloss", "brier", "calibration", "score_mean", "label_mean", "accuracy",
    "precision", "recall", "specificity", "f1", sm.fbeta(beta=2), "balanced_accuracy", "mcc", "tp", "fp", "tn",
    "fn", sm.precision(threshold=0.3),
]  # fmt: skip
PER_QUERY = ["gauc", sm.gauc(weighting="positives"), sm.gauc(weighting="uniform")]
RANKING = [
    "ndcg@3", "ndcg", "dcg@2", "cg@2", "mrr", "map", "err", "hit_rate@2", "precision@2", "recall@2",
    sm.metric("precision@2", average="micro"), sm.metric("recall@2", average="micro"),
    sm.metric("hit_rate@2", average="micro"), sm.metric("ndcg@3", empty="zero"), "rank_corr",
]  # fmt: skip
REGRESSION = ["mae", "mse", "rmse", "mape", "mean_error", "max_error"]
MULTICLASS = ["accuracy", "f1", sm.multiclass_f1(average="weighted"), "mcc", "cohen_kappa", "balanced_accuracy"]


def assert_same_frame(actual: pl.DataFrame, expected: pl.DataFrame, tolerance: float = 1e-9) -> None:
    """The same columns and rows, every number within ``tolerance`` (relative above 1),
    NULL (or NaN) where the other is."""
    assert actual.columns == expected.columns
    assert actual.height == expected.height, (actual, expected)
    for column in expected.columns:
        for got, want in zip(actual[column].to_list(), expected[column].to_list()):
            if isinstance(want, float) or isinstance(got, float):
                missing = [value is None or math.isnan(value) for value in (got, want)]
                assert missing[0] == missing[1], (column, got, want)
                if not missing[0]:
                    assert abs(got - want) <= tolerance * max(1.0, abs(want)), (column, got, want)
            else:
                assert got == want, (column, got, want)


def parts_of(draw, frame: pl.DataFrame, parts: int = 3) -> pl.DataFrame:
    """``frame`` with a ``part`` column: each row in one of ``parts`` random parts."""
    chosen = draw(st.lists(st.integers(0, parts - 1), min_size=frame.height, max_size=frame.height))
    return frame.with_columns(part=pl.Series(chosen, dtype=pl.Int64))


def states_of(frame: pl.DataFrame, metrics, engine: str, by=("part", "slice"), **columns) -> list[pl.DataFrame]:
    """One state per part of ``frame``, each sliced by ``by``."""
    return [
        sm.state(frame.filter(part=part), metrics, by=list(by), engine=engine, **columns)
        for part in sorted(set(frame["part"].to_list()))
    ] or [sm.state(frame, metrics, by=list(by), engine=engine, **columns)]


@st.composite
def split_impressions(draw, weighted: bool | None = None):
    frame = draw(impressions(max_rows=40, weighted=weighted))
    frame = parts_of(draw, frame)
    # each query within one part and slice: an id of the part, the slice and the query
    user = pl.format("{}-{}-{}", "part", pl.col("slice").fill_null("none"), "query")
    return frame.with_columns(user=pl.when(pl.col("query").is_not_null()).then(user))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(data=st.data())
@examples(40, AGREEMENT)
def test_rollup_of_parts_equals_evaluate_of_union(engine, data):
    """Classification metrics of sums and of the score histogram, and gauc's means over
    queries, rolled up from states per part and slice: by slice, and over everything."""
    frame = data.draw(split_impressions())
    columns = {"label": "label", "score": "score", "query": "user", "weight": "weight"}
    states = states_of(frame, [*SUMMED, *PER_QUERY], engine, **columns)
    for by in (["slice"], [], ["part", "slice"]):
        expected = sm.evaluate(frame, [*SUMMED, *PER_QUERY], by=by or None, **columns)
        assert_same_frame(sm.rollup(states, by=by), expected)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(data=st.data())
@examples(40, AGREEMENT)
def test_ranking_rollup_equals_evaluate_of_union(engine, data):
    """The ranking metrics' means over lists, every list within one part."""
    frame = data.draw(ranked_impressions(min_rows=1, max_rows=6))
    frame = parts_of(data.draw, frame).with_columns(query=pl.format("{}-{}", "part", "query"))
    columns = {"label": "label", "score": "score", "query": "query", "item": "item"}
    states = states_of(frame, RANKING, engine, by=("part",), **columns)
    assert_same_frame(sm.rollup(states), sm.evaluate(frame, RANKING, **columns))
    assert_same_frame(sm.rollup(states, by="part"), sm.evaluate(frame, RANKING, by="part", **columns))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(data=st.data())
@examples(30, AGREEMENT)
def test_run_with_judgments_rollup_equals_evaluate(engine, data):
    """A run and its judgments (labels from the judgments, judged items never retrieved
    counting in the ideal ranking), each query's rows in one part."""
    run, judgments = data.draw(run_and_judgments(tie_free=False))
    queries = sorted(set(run["query"].drop_nulls().to_list()))
    part_of = dict(zip(queries, data.draw(st.lists(st.integers(0, 2), min_size=len(queries), max_size=len(queries)))))
    run = run.with_columns(part=pl.col("query").replace_strict(part_of, default=0, return_dtype=pl.Int64))
    metrics = ["ndcg@3", "map", "recall@2", "mrr"]
    columns = {"label": "label", "score": "score", "query": "query", "item": "item", "judgments": judgments}
    states = states_of(run, metrics, engine, by=("part",), **columns)
    assert_same_frame(sm.rollup(states), sm.evaluate(run, metrics, **columns))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(data=st.data())
@examples(30, AGREEMENT)
def test_regression_rollup_equals_evaluate_of_union(engine, data):
    frame = parts_of(data.draw, data.draw(regression_rows()))
    columns = {"label": "label", "score": "score", "weight": "weight"}
    states = states_of(frame, REGRESSION, engine, **columns)
    assert_same_frame(sm.rollup(states, by="slice"), sm.evaluate(frame, REGRESSION, by="slice", **columns))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(data=st.data())
@examples(30, AGREEMENT)
def test_multiclass_rollup_equals_evaluate_of_union(engine, data):
    frame = parts_of(data.draw, data.draw(class_predictions()))
    columns = {"label": "label", "prediction": "prediction", "weight": "weight"}
    states = states_of(frame, MULTICLASS, engine, **columns)
    assert_same_frame(sm.rollup(states, by="slice"), sm.evaluate(frame, MULTICLASS, by="slice", **columns))


@given(data=st.data())
@examples(30, AGREEMENT)
def test_both_engines_build_the_same_state(data):
    """The same rows, columns and types: a state built by either engine rolls up with one
    built by the other."""
    frame = data.draw(split_impressions())
    columns = {"label": "label", "score": "score", "query": "user", "weight": "weight", "by": ["part", "slice"]}
    built = [sm.state(frame, [*SUMMED, *PER_QUERY], engine=engine, **columns) for engine in ("duckdb", "polars")]
    ids = [state["state_id"].drop_nulls().unique().to_list() for state in built]
    assert len(ids[0]) == len(ids[1]) == 1 and ids[0] != ids[1]  # one id per state, made when it is built
    keys = [c for c in built[0].columns if c not in ("state_meta", "state_id")]
    ordered = [state.sort(keys, nulls_last=True).drop("state_id") for state in built]
    assert ordered[0].schema == ordered[1].schema
    assert_same_frame(ordered[1], ordered[0])


@given(data=st.data())
@examples(25, AGREEMENT)
def test_rollup_intervals_equal_evaluates(data):
    """The analytic intervals from the merged sums and the queries' values: DeLong's, the
    binomial, the means', the delta method's and the t over queries."""
    frame = data.draw(split_impressions())
    metrics = ["auc", "logloss", "brier", "calibration", "precision", "f1", "mcc", "gauc"]
    columns = {"label": "label", "score": "score", "query": "user", "weight": "weight"}
    states = states_of(frame, metrics, "duckdb", **columns)
    expected = sm.evaluate(frame, metrics, by="slice", ci=0.9, ci_method="analytic", **columns)
    assert_same_frame(sm.rollup(states, by="slice", ci=0.9), expected, tolerance=1e-8)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(data=st.data())
@examples(30, AGREEMENT)
def test_regression_rollup_intervals_equal_evaluates(engine, data):
    """The regression means' intervals from each state's W, mean and Σ w·(x − mean)² per
    slice, merged by Chan's update: evaluate's two-pass spread over the union's rows."""
    frame = parts_of(data.draw, data.draw(regression_rows()))
    metrics = ["mae", "mse", "rmse", "mape", "mean_error"]
    columns = {"label": "label", "score": "score", "weight": "weight"}
    states = states_of(frame, metrics, engine, by=("part", "slice"), **columns)
    for by in ("slice", None):
        expected = sm.evaluate(frame, metrics, by=by, ci=0.9, **columns)
        assert_same_frame(sm.rollup(states, by=by, ci=0.9), expected, tolerance=1e-8)


def test_states_survive_parquet_files_globs_and_directories(tmp_path):
    frame = pl.DataFrame(
        {
            "day": ["d1", "d1", "d1", "d2", "d2", "d2", "d3", "d3"],
            "click": [0, 1, 1, 0, 1, 0, 1, 0],
            "pctr": [0.1, 0.8, 0.35, 0.35, 0.9, 0.2, 0.6, 0.6],
            "user": ["a1", "a1", "b1", "a2", "a2", "b2", "a3", "a3"],
        }
    )
    metrics = ["auc", "logloss", "gauc", "calibration"]
    columns = {"label": "click", "score": "pctr", "query": "user"}
    for day in ("d1", "d2", "d3"):
        sm.state(frame.filter(day=day), metrics, by="day", **columns).write_parquet(tmp_path / f"day={day}.parquet")
    expected = sm.evaluate(frame, metrics, **columns)
    for given_as in (tmp_path, str(tmp_path / "*.parquet"), sorted(tmp_path.glob("*.parquet"))):
        assert_same_frame(sm.rollup(given_as), expected)
    assert_same_frame(
        sm.rollup(pl.scan_parquet(tmp_path / "*.parquet"), by="day"), sm.evaluate(frame, metrics, by="day", **columns)
    )
    assert_same_frame(sm.rollup(tmp_path, metrics=["gauc"]), sm.evaluate(frame, ["gauc"], **columns))


def test_a_query_in_two_states_is_refused_naming_it():
    frame = pl.DataFrame({"day": [1, 1, 2, 2], "click": [0, 1, 1, 0], "pctr": [0.2, 0.9, 0.4, 0.3], "user": ["u7"] * 4})
    states = [
        sm.state(frame.filter(day=d), ["auc", "gauc"], label="click", score="pctr", query="user", by="day")
        for d in (1, 2)
    ]
    assert sm.rollup(states, by="day").height == 2  # each query within one day's slice
    with pytest.raises(InvalidInputError, match=r"gauc is a mean over queries.*1 query appears.*e\.g\. query u7"):
        sm.rollup(states)
    assert (
        sm.rollup(states, metrics=["auc"])["auc"].item()
        == sm.evaluate(frame, ["auc"], label="click", score="pctr")["auc"].item()
    )


def test_what_does_not_merge_is_refused():
    frame = pl.DataFrame({"y": [0.0, 1.0, 2.0], "p": [0.5, 1.0, 1.5], "c": [0, 1, 1]})
    with pytest.raises(
        InvalidParameterError, match="median_absolute_error cannot be kept in a state: computed from the rows"
    ):
        sm.state(frame, ["mae", "median_absolute_error"], label="y", score="p")
    with pytest.raises(InvalidParameterError, match="auc cannot be kept in a state"):
        sm.state(frame, ["auc"], label="c", class_scores={0: "p", 1: "y"})
    state = sm.state(frame, ["max_error"], label="y", score="p")
    with pytest.raises(InvalidParameterError, match="max_error has no analytic interval"):
        sm.rollup(state, ci=0.95)
    state = sm.state(frame, ["average_precision"], label="c", score="p")
    with pytest.raises(
        InvalidParameterError, match="average_precision has no analytic interval, and a bootstrap resamples rows"
    ):
        sm.rollup(state, ci=0.95)
    with pytest.raises(InvalidParameterError, match=r"by: 'day' not among the states' slices \[\]"):
        sm.rollup(state, by="day")
    with pytest.raises(InvalidParameterError, match="auc not in the states, which keep average_precision"):
        sm.rollup(state, metrics=["auc"])


def test_states_of_different_calls_are_refused_naming_the_difference(tmp_path):
    frame = pl.DataFrame({"c": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.3]})
    one = sm.state(frame, ["auc"], label="c", score="p")
    other = sm.state(frame, [sm.precision(threshold=0.3)], label="c", score="p")
    with pytest.raises(InvalidParameterError, match=r"their metrics differ \(\[\{'metric': 'auc'"):
        sm.rollup([one, other])
    renamed = sm.state(frame.rename({"p": "q"}), ["auc"], label="c", score="q")
    with pytest.raises(InvalidParameterError, match="their columns differ"):
        sm.rollup([one, renamed])
    meta = json.loads(one.filter(state_part="meta")["state_meta"].item())
    older = one.with_columns(
        state_meta=pl.when(pl.col("state_part") == "meta").then(pl.lit(json.dumps(meta | {"version": 2})))
    )
    with pytest.raises(
        SourceError,
        match=r"the state frame is a state of format version 2: this sqlmetrics reads version 3, whose states say "
        r"which rows they cover .* build the states again",
    ):
        sm.rollup(older)
    with pytest.raises(SourceError, match="not a state"):
        sm.rollup(frame)
    with pytest.raises(SourceError, match="no state files at"):
        sm.rollup(str(tmp_path / "*.parquet"))


def test_slices_keep_their_types_through_a_rollup():
    """A zoned timestamp slice stays in its zone (DuckDB returns TIMESTAMPTZ in UTC) and
    a small integer stays small, as evaluate returns them."""
    frame = pl.DataFrame(
        {
            "t": [datetime.datetime(2026, 1, 1, 5)] * 3 + [datetime.datetime(2026, 1, 2, 5)] * 2,
            "hour": pl.Series([1, 1, 2, 2, 2], dtype=pl.Int8),
            "c": [0, 1, 1, 0, 1],
            "p": [0.1, 0.2, 0.3, 0.4, 0.5],
        }
    ).with_columns(pl.col("t").dt.replace_time_zone("Asia/Tokyo"))
    state = sm.state(frame, ["auc"], label="c", score="p", by=["t", "hour"])
    expected = sm.evaluate(frame, ["auc"], label="c", score="p", by=["t", "hour"])
    assert sm.rollup(state, by=["t", "hour"]).schema == expected.schema
    assert_same_frame(sm.rollup(state, by=["t", "hour"]), expected)


def test_a_directory_of_states_skips_a_failed_jobs_leftovers(tmp_path):
    """States are listed as a source's Parquet files are: a copy a failed job left in
    ``_temporary`` (or a hidden file) is not a day of its own. Read, it doubled every
    count of the roll-up."""
    frame = pl.DataFrame({"c": [0, 1, 1, 0], "p": [0.2, 0.9, 0.4, 0.3]})
    state = sm.state(frame, ["auc", "logloss"], label="c", score="p")
    state.write_parquet(tmp_path / "day=1.parquet")
    (tmp_path / "_temporary").mkdir()
    state.write_parquet(tmp_path / "_temporary" / "day=1.parquet")
    state.write_parquet(tmp_path / ".day=1.parquet")
    assert_same_frame(sm.rollup(tmp_path), sm.evaluate(frame, ["auc", "logloss"], label="c", score="p"))


# --- repeats: the same rows twice are refused, never counted twice ----------------------

DAYS = pl.DataFrame(
    {"day": [1, 1, 1, 2, 2, 2], "c": [0, 1, 1, 0, 1, 0], "p": [0.1, 0.8, 0.3, 0.3, 0.9, 0.2], "u": list("aabccd")}
)
CALL = {"label": "c", "score": "p", "by": "day"}
SUMS = ["auc", "logloss"]  # no mean over queries: before states said which rows they cover, nothing noticed


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_state_given_twice_is_refused_naming_both(engine, tmp_path):
    """One state twice, as two list items, concatenated, or as a file also in its folder:
    each was rolled up as twice the rows (n_rows 12 for 6, intervals √2 too narrow). With
    a mean over queries, the state given twice is said first (not its queries)."""
    state = sm.state(DAYS, SUMS, engine=engine, **CALL)
    with pytest.raises(
        InvalidInputError, match=r"\(given as states\[0\] and states\[1\]\): its rows would be"
    ) as refused:
        sm.rollup([state, state])
    assert f"e.g. the state {state['state_id'].drop_nulls().unique().item()} (" in str(refused.value)
    with pytest.raises(InvalidInputError, match=r"\(the state frame holds it 2 times\): its rows would be counted"):
        sm.rollup(pl.concat([state, state]))
    state.write_parquet(tmp_path / "day.parquet")
    file = str(tmp_path / "day.parquet")
    with pytest.raises(InvalidInputError, match=rf"given as the state file '{file}' and the state file '{file}'"):
        sm.rollup([tmp_path, file])
    other = sm.state(DAYS.with_columns(day=pl.col("day") + 2), SUMS, engine=engine, **CALL)
    assert sm.rollup([other, tmp_path])["n_rows"].item() == 12  # two states of different rows: 6 + 6
    with_queries = sm.state(DAYS, ["auc", "gauc"], engine=engine, query="u", **CALL)
    with pytest.raises(InvalidInputError, match=r"^1 state is given more than once"):
        sm.rollup([with_queries, with_queries])


def day_files(folder) -> list[str]:
    """``DAYS`` as one Parquet file per day in ``folder``."""
    folder.mkdir()
    for day in (1, 2):
        DAYS.filter(day=day).write_parquet(folder / f"{day}.parquet")
    return [str(folder / f"{day}.parquet") for day in (1, 2)]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_two_states_of_one_source_holding_one_slice_are_refused_naming_both(engine, tmp_path, monkeypatch):
    """A job run twice over one file (two ids, the same rows), a relative and an absolute
    path to it, a folder's state built again after the folder grew: two states of one
    source (its absolute path) holding one slice. States of other sources, or of one
    source's other slices, roll up."""
    files = day_files(tmp_path / "logs")
    first, second = (sm.state(file, SUMS, engine=engine, **CALL) for file in files)
    assert_same_frame(sm.rollup([first, second]), sm.evaluate(DAYS, SUMS, label="c", score="p"))
    retried = sm.state(files[0], SUMS, engine=engine, **CALL)
    message = (  # the two states in the order of their ids
        rf"(states\[0\] and states\[2\]|states\[2\] and states\[0\]) cover the same rows: both are states of the "
        rf"source '{files[0]}' holding the slice day=1 "
    )
    with pytest.raises(InvalidInputError, match=message) as refused:
        sm.rollup([first, second, retried])
    ids = sorted(state["state_id"].drop_nulls().unique().item() for state in (first, retried))
    assert f"(states {ids[0]} and {ids[1]})" in str(refused.value)
    monkeypatch.chdir(tmp_path)
    relative = sm.state("logs/1.parquet", SUMS, engine=engine, **CALL)
    with pytest.raises(InvalidInputError, match=f"both are states of the source '{files[0]}' holding the slice day=1"):
        sm.rollup([second, relative, first])
    grown = tmp_path / "grown"
    grown.mkdir()
    DAYS.filter(day=1).write_parquet(grown / "a.parquet")
    monday = sm.state(grown, ["auc"], engine=engine, **CALL)
    DAYS.filter(day=2).write_parquet(grown / "b.parquet")
    tuesday = sm.state(grown, ["auc"], engine=engine, **CALL)
    with pytest.raises(InvalidInputError, match=f"of the source '{grown}' holding the slice day=1 "):
        sm.rollup([monday, tuesday])
    assert sm.rollup([monday, tuesday.filter(pl.col("day").ne_missing(1))])["n_rows"].item() == 6  # Tuesday's day
    whole = {"label": "c", "score": "p"}  # no slices: a source's states hold all its rows
    with pytest.raises(InvalidInputError, match=r"holding the slice all its rows \(no slices\)"):
        sm.rollup([sm.state(files[0], ["auc"], engine=engine, **whole) for _ in range(2)])
    assert sm.rollup([sm.state(file, ["auc"], engine=engine, **whole) for file in files])["n_rows"].item() == 6


# --- stored states: every field edited is refused, naming what is wrong and where -------

TAMPERED = ["auc", "gauc", "logloss", "mae"]
BASE, META = pl.col("state_part") == "base", pl.col("state_part") == "meta"


def meta_edit(change):
    """An edit of a state's meta row: ``change`` of its parsed JSON, written back sorted."""

    def edit(state: pl.DataFrame) -> pl.DataFrame:
        meta = json.loads(state.filter(META)["state_meta"].item())
        text = change(meta) if callable(change) else change
        text = text if isinstance(text, str) else json.dumps(text, sort_keys=True)
        return state.with_columns(state_meta=pl.when(META).then(pl.lit(text)))

    return edit


def in_part(part: str, **columns):
    """An edit of the rows of ``part``: each column set to its value there."""
    rows = pl.col("state_part") == part
    return lambda state: state.with_columns(
        pl.when(rows).then(pl.lit(v)).otherwise(c).alias(c) for c, v in columns.items()
    )


NOT_A_STATE_META = "the state frame: its meta row's state_meta is not a state's: "
EDITS = {  # edit -> (error, message); each gave a traceback (JSONDecodeError, AttributeError, KeyError,
    # BinderException, ConversionException) or a number from the edited value (n_rows -2194, gauc NULL); a metric
    # twice in the meta gave DuckDB's BinderException (duplicate alias "m_auc")
    "meta not JSON": (meta_edit("{not json"), SourceError, r"the state frame: its meta row's state_meta is not JSON"),
    "meta a list": (meta_edit("[1, 2]"), SourceError, r"state_meta is not a JSON object: '\[1, 2\]'"),
    "meta NULL": (lambda s: s.with_columns(state_meta=pl.lit(None, pl.String)), SourceError, r"holds no state_meta"),
    "meta without metrics": (meta_edit(lambda m: {k: v for k, v in m.items() if k != "metrics"}), SourceError,
                             NOT_A_STATE_META + "no key metrics"),
    "meta without by": (meta_edit(lambda m: {k: v for k, v in m.items() if k != "by"}), SourceError,
                        NOT_A_STATE_META + "no key by"),
    "meta with a key of its own": (meta_edit(lambda m: m | {"x": 1}), SourceError, NOT_A_STATE_META + "unknown key x"),
    "score_digits 99": (meta_edit(lambda m: m | {"score_digits": 99}), SourceError,
                        "score_digits must be an integer from 1 to 15 .*, got 99"),
    "score_digits 'abc'": (meta_edit(lambda m: m | {"score_digits": "abc"}), SourceError,
                           "score_digits is not an integer from 1 to 15: 'abc'"),
    "an unknown metric": (meta_edit(lambda m: m | {"metrics": [{"metric": "aucx", "params": {}}]}), SourceError,
                          "it describes no call a state keeps: unknown metric 'aucx'"),
    "a parameter of text": (meta_edit(lambda m: m | {"metrics": [{"metric": "precision", "params": {"threshold": "a"}}]}),
                            SourceError, "parameter 'threshold' must be a finite number, got 'a'"),
    "gauc without its query": (meta_edit(lambda m: m | {"columns": m["columns"] | {"query": None}}), SourceError,
                               "gauc averages over queries"),
    "a metric twice": (meta_edit(lambda m: m | {"metrics": m["metrics"] + m["metrics"][:1]}), SourceError,
                       r"it describes no call a state keeps: metrics auc\(\) and auc\(\) both produce the column 'auc'"),
    "columns a list": (meta_edit(lambda m: m | {"columns": ["c"]}), SourceError, "columns is not an object of the roles"),
    "w dropped": (lambda s: s.drop("w"), SourceError, r"the state frame: the state has no column 'w', which a state of "
                  r"auc, gauc, logloss, mae by \['day'\] keeps"),
    "n dropped": (lambda s: s.drop("n"), SourceError, "the state has no column 'n',"),
    "score dropped": (lambda s: s.drop("score"), SourceError, "the state has no column 'score',"),
    "value dropped": (lambda s: s.drop("value"), SourceError, "the state has no column 'value',"),
    "query dropped": (lambda s: s.drop("query"), SourceError, "the state has no column 'query',"),
    "the slice dropped": (lambda s: s.drop("day"), SourceError, "the state has no column 'day',"),
    "state_id dropped": (lambda s: s.drop("state_id"), SourceError, "the state has no column 'state_id',"),
    "w as text": (lambda s: s.with_columns(pl.col("w").cast(pl.String)), SourceError,
                  "the state's column 'w' is of type String, not numbers"),
    "n as a float": (lambda s: s.with_columns(pl.col("n").cast(pl.Float64)), SourceError,
                     r"column 'n' is of type Float64, not whole numbers \(a count of rows\)"),
    "n = 2**62": (in_part("base", n=2**62, n_all=2**62), InvalidInputError,
                  r"column 'n_all' of the states' base rows adds up to 2\.767e\+19 rows, beyond 2\^53 .* e\.g\. "
                  "4611686018427387904 in the state frame"),
    "negative counts": (in_part("base", n_all=-2194), InvalidInputError,
                        r"column 'n_all' of a state's base rows must be a count of rows, >= 0: 6 rows are not, "
                        "e.g. -2194 in the state frame"),
    "n > n_all": (lambda s: s.with_columns(n=pl.when(BASE).then(pl.col("n_all") + 1)), InvalidInputError,
                  r"column 'n' of a state's base rows must be at most n_all, the rows of its slice: 6 rows"),
    "NaN weights": (in_part("base", w=float("nan")), InvalidInputError,
                    r"column 'w' of a state's base rows must be a finite sum of weights, >= 0: 6 rows are not, "
                    "e.g. nan"),
    "negative weights": (in_part("base", w=-1.0), InvalidInputError, "must be a finite sum of weights, >= 0: .* e.g. -1"),
    "label 2": (lambda s: s.with_columns(label=pl.when(BASE & (pl.col("label") == 1)).then(2.0).otherwise("label")),
                InvalidInputError, r"column 'label' of a state's base rows must be 0 or 1 \(or boolean\) \(for auc, gauc, "
                r"logloss\): 3 rows are not, e.g. 2 in the state frame"),
    "a NaN score": (in_part("base", score=float("nan")), InvalidInputError, "column 'score' .* must not be NaN"),
    "a NaN sum": (in_part("base", abs_error=float("nan")), InvalidInputError, "column 'abs_error' .* must not be NaN"),
    "a renamed part": (lambda s: s.with_columns(state_part=pl.col("state_part").replace("gauc", "gauk")), SourceError,
                       r"the state frame: 4 rows of the states are of no part of their call, e.g. state_part "
                       "'gauk'; a state of auc, gauc, logloss, mae has the parts base, gauc, mae, slices, meta"),
    "a query's NaN weight": (in_part("gauc", weight=float("nan")), InvalidInputError,
                             r"column 'weight' of a state's gauc rows must be a finite weight, >= 0: 4 rows"),
    "a query's NaN value": (in_part("gauc", value=float("nan")), InvalidInputError, "'value' of a state's gauc rows must "
                            "not be NaN"),
    "a negative spread": (in_part("mae", spread=-1.0), InvalidInputError,
                          "column 'spread' of a state's mae rows must be a sum of squares, >= 0"),
    "no id": (lambda s: s.with_columns(state_id=pl.lit(None, pl.String)), InvalidInputError,
              "column 'state_id' of a state's meta and slices rows must name the state"),
    "no meta row": (lambda s: s.filter(~META), SourceError, "the state frame is not a state: it has no meta row"),
}  # fmt: skip


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_state_is_refused_naming_what_and_where(engine, edit):
    change, error, message = EDITS[edit]
    state = sm.state(DAYS.with_columns(y=pl.col("p") * 2), TAMPERED, engine=engine, query="u", **CALL)
    assert sm.rollup(state)["n_rows"].item() == 6  # as written, it rolls up
    with pytest.raises(error, match=message):
        sm.rollup(change(state))


def test_a_folder_of_states_with_other_files_is_refused_naming_the_file(tmp_path, capsys):
    """Rows beside the states were left out (rc 0), a state file of other types gave a
    BinderException and a corrupt file polars' ComputeError; each is refused, naming the
    file, through sm.rollup and the command line."""
    for day in (1, 2):
        sm.state(DAYS.filter(day=day), SUMS, **CALL).write_parquet(tmp_path / f"{day}.parquet")
    cases = [
        (lambda path: DAYS.write_parquet(path), SourceError,
         r"the state file '.*other\.parquet' is not a state .*: no 'state_part' and 'state_meta' among its columns 'day', "
         "'c', 'p', 'u'; a folder of states holds only states"),
        (lambda path: path.write_bytes(b"PAR1 not Parquet PAR1"), SourceError,
         r"the state file '.*other\.parquet' cannot be read as Parquet: "),
        (lambda path: pl.read_parquet(tmp_path / "1.parquet").with_columns(pl.col("w").cast(pl.String)).write_parquet(path),
         SourceError, r"the states do not agree on the type of column 'w': Float64 in the state file '.*1\.parquet', "
         r"String in the state file '.*other\.parquet'"),
    ]  # fmt: skip
    for write, error, message in cases:
        write(tmp_path / "other.parquet")
        with pytest.raises(error, match=message):
            sm.rollup(tmp_path)
        assert cli.main(["rollup", str(tmp_path)]) == 1
        assert re.search(message, capsys.readouterr().err)
    (tmp_path / "other.parquet").unlink()
    assert sm.rollup(tmp_path)["n_rows"].item() == 6


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_enum_slices_of_different_categories_roll_up(engine):
    """Each day's Enum of the countries it saw (polars raised SchemaError): the roll-up
    reads one Enum of all their categories, and equals evaluate over the union."""
    days = [
        DAYS.filter(day=1).with_columns(country=pl.Series(["de", "fr", "de"], dtype=pl.Enum(["de", "fr"]))),
        DAYS.filter(day=2).with_columns(country=pl.Series(["us", "fr", "us"], dtype=pl.Enum(["us", "fr"]))),
    ]
    states = [  # each with its day's Enum (the polars engine keeps it; DuckDB's returns text)
        sm.state(day, SUMS, engine=engine, label="c", score="p", by=["day", "country"]).with_columns(
            pl.col("country").cast(day.schema["country"])
        )
        for day in days
    ]
    union = pl.concat([day.with_columns(pl.col("country").cast(pl.String)) for day in days])
    expected = sm.evaluate(union, SUMS, label="c", score="p", by="country")
    rolled = sm.rollup(states, by="country")
    assert rolled.schema["country"] == pl.Enum(["de", "fr", "us"])
    assert_same_frame(rolled.with_columns(pl.col("country").cast(pl.String)).sort("country"), expected.sort("country"))
    mixed = [states[0], states[1].with_columns(pl.col("country").cast(pl.String))]  # an Enum and text: text
    assert_same_frame(sm.rollup(mixed, by="country").sort("country"), expected.sort("country"))


def test_a_rollup_by_a_slice_named_twice_is_refused(tmp_path, capsys):
    """by=['day', 'day'] gave polars' DuplicateError; refused as evaluate refuses it, in
    Python, the roll-up statement and the command line."""
    state = sm.state(DAYS, SUMS, **CALL)
    with pytest.raises(InvalidParameterError, match=r"by lists a column twice: \['day', 'day'\]"):
        sm.rollup(state, by=["day", "day"])
    with pytest.raises(InvalidParameterError, match=r"by lists a column twice: \['day', 'day'\]"):
        sm.to_sql(SUMS, source="states", label="c", score="p", by=["day", "day"], rollup=True)
    state.write_parquet(tmp_path / "day.parquet")
    assert cli.main(["rollup", str(tmp_path), "--by", "day,day"]) == 1
    assert "sqlmetrics: error: --by lists a column twice: ['day', 'day']" in capsys.readouterr().err
