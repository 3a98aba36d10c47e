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

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import class_predictions, examples, impressions, ranked_impressions, regression_rows, run_and_judgments

import sqlmetrics as sm
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
@examples(40)
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
@examples(40)
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
@examples(30)
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
@examples(30)
def test_regression_rollup_equals_evaluate_of_union(engine, data):
    frame = parts_of(data.draw, data.draw(regression_rows()))
    columns = {"label": "label", "score": "score", "weight": "weight"}
    states = states_of(frame, REGRESSION, engine, **columns)
    assert_same_frame(sm.rollup(states, by="slice"), sm.evaluate(frame, REGRESSION, by="slice", **columns))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(data=st.data())
@examples(30)
def test_multiclass_rollup_equals_evaluate_of_union(engine, data):
    frame = parts_of(data.draw, data.draw(class_predictions()))
    columns = {"label": "label", "prediction": "prediction", "weight": "weight"}
    states = states_of(frame, MULTICLASS, engine, **columns)
    assert_same_frame(sm.rollup(states, by="slice"), sm.evaluate(frame, MULTICLASS, by="slice", **columns))


@given(data=st.data())
@examples(30)
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
@examples(25)
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
@examples(30)
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
    with pytest.raises(InvalidInputError, match=r"gauc is a mean over queries.*1 quer\(ies\).*e\.g\. query u7"):
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
