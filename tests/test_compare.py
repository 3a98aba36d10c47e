"""sm.compare over arms (independent samples): the difference, its normal interval and
p-value against scipy from each arm's brute-force DeLong and per-query values, on both
engines; bad requests; the docstring example."""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from test_intervals import brute_force_delong

import sqlmetrics as sm
from sqlmetrics.errors import InvalidInputError, InvalidParameterError


def _arm_rows(draw_rows):
    return st.lists(
        st.tuples(st.sampled_from(["v1", "v2", "v3"]), st.sampled_from(["x", "y"]), *draw_rows), min_size=1, max_size=60
    )


AUC_ROWS = _arm_rows([st.sampled_from([0.1, 0.3, 0.5, 0.9]), st.integers(0, 1)])


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@settings(max_examples=30)
@given(rows=AUC_ROWS)
def test_auc_difference_of_independent_arms(engine, rows):
    frame = pl.DataFrame(rows, schema=["arm", "country", "score", "label"], orient="row")
    if frame["arm"].n_unique() < 2 or "v1" not in frame["arm"]:
        return
    result = sm.compare(frame, ["auc"], arm="arm", baseline="v1", score="score", by="country", ci=0.9, engine=engine)
    z = stats.norm.ppf(0.95)
    for row in result.iter_rows(named=True):
        estimates = []
        for arm in ("v1", row["candidate"]):
            part = frame.filter((pl.col("arm") == arm) & (pl.col("country") == row["country"]))
            labels = part["label"].to_numpy()
            if part.is_empty() or labels.sum() < 2 or (1 - labels).sum() < 2:
                estimates.append(None)
            else:
                estimates.append(brute_force_delong(part["score"], labels))
        if None in estimates:
            assert row["p_value"] is None and row["delta_lo"] is None
            continue
        (base, se_base), (cand, se_cand) = estimates
        delta, se = cand - base, math.hypot(se_base, se_cand)
        assert row["delta"] == pytest.approx(delta, abs=1e-12)
        assert row["delta_lo"] == pytest.approx(delta - z * se, abs=1e-9)
        assert row["delta_hi"] == pytest.approx(delta + z * se, abs=1e-9)
        if se > 0:
            assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(delta) / se), abs=1e-9)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_mean_over_queries_difference(engine):
    rng = np.random.default_rng(3)
    n = 3000
    frame = pl.DataFrame(
        {
            "arm": rng.choice(["control", "treatment"], n),
            "query": rng.integers(0, 300, n),
            "label": (rng.random(n) < 0.3).astype(int),
            "score": rng.random(n),
        }
    ).with_columns(query=pl.col("query") * 2 + (pl.col("arm") == "treatment"))  # each query in one arm
    result = sm.compare(frame, ["mrr"], arm="arm", baseline="control", score="score", query="query", engine=engine)
    row = result.row(0, named=True)
    per_query = sm.evaluate(frame, ["mrr"], score="score", query="query", by=["arm", "query"]).drop_nulls("mrr")
    values = {arm: per_query.filter(pl.col("arm") == arm)["mrr"].to_numpy() for arm in ("control", "treatment")}
    delta = values["treatment"].mean() - values["control"].mean()
    se = math.hypot(stats.sem(values["control"]), stats.sem(values["treatment"]))
    assert row["delta"] == pytest.approx(delta, abs=1e-12)
    assert row["delta_hi"] - row["delta"] == pytest.approx(stats.norm.ppf(0.975) * se, abs=1e-9)
    assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(delta) / se), abs=1e-9)
    assert row["method"] == "arms, normal: mean over queries"


def test_one_row_per_slice_metric_and_candidate():
    frame = pl.DataFrame(
        {
            "arm": ["a", "b", "c"] * 8,
            "day": [1] * 12 + [2] * 12,
            "label": [0, 0, 0, 1, 1, 1] * 4,
            "score": [0.1 * i for i in range(24)],
        }
    )
    result = sm.compare(frame, ["auc", "accuracy"], arm="arm", baseline="b", score="score", by="day")
    assert result.columns == [
        "day", "metric", "baseline", "candidate", "baseline_value", "candidate_value",
        "delta", "delta_lo", "delta_hi", "p_value", "method",
    ]  # fmt: skip
    assert result.select("day", "metric", "candidate").rows() == [
        (1, "auc", "a"), (1, "auc", "c"), (2, "auc", "a"), (2, "auc", "c"),
        (1, "accuracy", "a"), (1, "accuracy", "c"), (2, "accuracy", "a"), (2, "accuracy", "c"),
    ]  # fmt: skip
    assert (result["baseline"] == "b").all()


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"baseline": "v9"}, InvalidInputError, "baseline 'v9' does not occur in arm column 'arm'; its values: "),
        ({"baseline": "v1", "by": "arm"}, InvalidParameterError, "is also a slice column"),
        ({"baseline": "v1", "ci": None}, InvalidParameterError, "compare needs a confidence level"),
        ({"baseline": "v1", "ci": 2}, InvalidParameterError, "between 0 and 1"),
        ({"baseline": "v1", "metrics": ["f1"]}, InvalidParameterError, "no analytic interval for f1"),
        ({"baseline": "v1", "arm": ["arm"]}, InvalidParameterError, "arm must be a column name"),
    ],
)
def test_bad_comparisons_are_refused(kwargs, error, message):
    frame = pl.DataFrame({"arm": ["v1", "v2"] * 3, "label": [0, 1, 1, 0, 0, 1], "score": [0.1, 0.2] * 3})
    arguments = {"arm": "arm", "score": "score", **kwargs}
    with pytest.raises(error, match=message):
        sm.compare(frame, arguments.pop("metrics", ["auc"]), **arguments)


def test_a_single_arm_is_refused():
    frame = pl.DataFrame({"arm": ["v1"] * 4, "label": [0, 1, 1, 0], "score": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(InvalidInputError, match="arm column 'arm' has a single value \\('v1'\\)"):
        sm.compare(frame, ["auc"], arm="arm", baseline="v1", score="score")


def test_docstring_example_runs():
    module = importlib.import_module("sqlmetrics.compare")  # sm.compare is the function
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_command_line_compare_writes_what_compare_returns(tmp_path, capsys):
    from sqlmetrics import cli

    frame = pl.DataFrame({"v": [1, 2] * 20, "label": [0, 0, 1, 1] * 10, "score": [0.1 * (i % 9) for i in range(40)]})
    frame.write_parquet(tmp_path / "logs.parquet")
    argv = ["compare", str(tmp_path / "logs.parquet"), "-m", "auc,accuracy", "--arm", "v", "--baseline", "1"]
    assert cli.main([*argv, "--format", "csv"]) == 0
    printed = pl.read_csv(capsys.readouterr().out.encode())
    expected = sm.compare(frame, ["auc", "accuracy"], arm="v", baseline=1)
    assert printed["delta"].to_list() == pytest.approx(expected["delta"].to_list(), abs=1e-9)
    assert printed["p_value"].to_list() == pytest.approx(expected["p_value"].to_list(), abs=1e-9)
