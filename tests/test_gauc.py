"""GAUC against a plain Python reference, and a vector worked by hand."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sqlmetrics as sm
import sqlmetrics.polars as smp

import metric_tests
from strategies import impressions, parameters

REFERENCE = metric_tests.modules("classification")["gauc"].REFERENCE

# users A A A A B B B C C D D D
#   A: positives .9 .3 vs negatives .8 .2 -> pairs won: .9>.8, .9>.2, .3>.2 = 3/4
#   B: positive .4 vs negatives .6 .5      -> 0/2 = 0
#   C: positives only                      -> skipped
#   D: positives .2 .6 vs negative .35     -> .6>.35 = 1/2
# impressions: (4·.75 + 3·0 + 3·.5) / 10 = 0.45;  positives: (2·.75 + 1·0 + 2·.5) / 5 = 0.5
# uniform: (.75 + 0 + .5) / 3 = 0.416667
HAND_WORKED = pl.DataFrame(
    {
        "user": list("AAAABBBCCDDD"),
        "click": [1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1],
        "pctr": [0.9, 0.8, 0.3, 0.2, 0.6, 0.4, 0.5, 0.7, 0.1, 0.35, 0.2, 0.6],
    }
)


@pytest.mark.parametrize("weighting, expected", [("impressions", 0.45), ("positives", 0.5), ("uniform", 1.25 / 3)])
def test_hand_worked_vector(weighting, expected, engine):
    call = sm.gauc(weighting=weighting)
    result = sm.evaluate(HAND_WORKED, [call], label="click", score="pctr", query="user", engine=engine)
    assert result[call.column].item() == pytest.approx(expected, abs=1e-12)
    assert result[f"{call.column}_groups"].item() == 3
    assert result[f"{call.column}_skipped"].item() == 1


@given(
    frame=impressions(),
    params=parameters(sm.registry()["gauc"]),
    engine=st.sampled_from(["duckdb", "polars"]),
)
def test_matches_python_reference(frame, params, engine):
    call = sm.gauc(**params)
    result = sm.evaluate(
        frame, [call], label="label", score="score", query="query", weight="weight", by="slice", engine=engine
    )
    for row in result.iter_rows(named=True):
        used = frame.filter(pl.col("slice").eq_missing(row["slice"])).drop_nulls(["label", "score", "weight", "query"])
        expected, groups, skipped = REFERENCE(
            used["label"].to_numpy(),
            used["score"].to_numpy(),
            used["weight"].to_numpy(),
            used["query"].to_numpy(),
            **params,
        )
        assert row["n_rows"] == used.height
        assert (row[f"{call.column}_groups"], row[f"{call.column}_skipped"]) == (groups, skipped)
        if expected is None:
            assert row[call.column] is None
        else:
            assert math.isclose(row[call.column], expected, rel_tol=1e-9, abs_tol=1e-12)


def test_frame_function_by_slice():
    frame = HAND_WORKED.with_columns(day=pl.Series([1, 1, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2]))
    by_day = smp.gauc(frame, score="pctr", label="click", query="user", by=["day"])
    assert by_day["day"].to_list() == [1, 2]  # sorted by slice, as evaluate sorts
    for day, value in zip(by_day["day"], by_day["gauc"]):
        rows = frame.filter(pl.col("day") == day)
        y, s, q = (rows[c].to_numpy() for c in ("click", "pctr", "user"))
        assert value == pytest.approx(REFERENCE(y, s, np.ones(len(y)), q)[0])
