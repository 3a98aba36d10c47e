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


@st.composite
def head_query_log(draw) -> pl.DataFrame:
    """A log whose query 0 holds most rows (a skewed log's head user: 60 to 300 rows
    against at most 40 in the other queries), with tied or continuous scores, weights or
    not, NULLs in every column and the degenerate queries: all positive (1), all
    negative (2), one row (3)."""
    tied = draw(st.booleans())
    weighted = draw(st.booleans())  # a weight column, or none (the unweighted rank-sum form)
    score = st.sampled_from([0.1, 0.5, 0.9]) if tied else st.floats(0.0, 1.0, allow_nan=False)
    weight = st.sampled_from([0.0, 0.5, 1.0, 3.0]) if weighted else st.just(1.0)
    rows = [(0, draw(st.integers(0, 1)), draw(score), draw(weight)) for _ in range(draw(st.integers(60, 300)))]
    rows += [(1, 1, draw(score), draw(weight)) for _ in range(draw(st.integers(1, 5)))]
    rows += [(2, 0, draw(score), draw(weight)) for _ in range(draw(st.integers(1, 5)))]
    rows += [(3, draw(st.integers(0, 1)), draw(score), draw(weight))]
    rows += draw(st.lists(st.tuples(st.integers(4, 9), st.integers(0, 1), score, weight), max_size=40))
    nulls = draw(st.lists(st.tuples(st.integers(0, len(rows) - 1), st.integers(0, 3)), max_size=5))
    rows = [list(row) for row in rows]
    for row, column in nulls:
        rows[row][column] = None
    order = draw(st.permutations(range(len(rows))))
    schema = {"query": pl.Int64, "label": pl.Int64, "score": pl.Float64, "weight": pl.Float64}
    frame = pl.DataFrame([rows[i] for i in order], schema=schema, orient="row")
    return frame if weighted else frame.drop("weight")  # without weights: the rank-sum form


def sklearn_gauc(frame: pl.DataFrame) -> tuple[float | None, int, int]:
    """Impression-weighted GAUC by brute force: scikit-learn's roc_auc_score per query with
    both classes (weighted by the rows' weights), each query weighted by its summed weight."""
    from sklearn.metrics import roc_auc_score

    used = frame.drop_nulls() if "weight" in frame.columns else frame.drop_nulls().with_columns(weight=pl.lit(1.0))
    total = weights = 0.0
    groups = skipped = 0
    for (_,), rows in used.group_by(["query"]):
        pos = rows.filter(pl.col("label") == 1)["weight"].sum()
        neg = rows.filter(pl.col("label") == 0)["weight"].sum()
        if not (pos > 0 and neg > 0):
            skipped += 1
            continue
        auc = roc_auc_score(rows["label"].to_numpy(), rows["score"].to_numpy(), sample_weight=rows["weight"].to_numpy())
        total += rows["weight"].sum() * auc
        weights += rows["weight"].sum()
        groups += 1
    return (total / weights if weights > 0 else None), groups, skipped


@given(frame=head_query_log())
def test_head_query_holding_most_rows(frame):
    """Skewed logs (issue 31): whatever plan per-query work takes when one query holds
    most rows, both engines give scikit-learn's per-query AUC averaged, and each other's
    number to 1e-9 (weights or not, ties, NULLs, one-class and one-row queries)."""
    expected, groups, skipped = sklearn_gauc(frame)
    values = {}
    for engine in ("duckdb", "polars"):
        weight = "weight" if "weight" in frame.columns else None
        result = sm.evaluate(frame, ["gauc"], label="label", score="score", query="query", weight=weight, engine=engine)
        assert (result["gauc_groups"].item(), result["gauc_skipped"].item()) == (groups, skipped)
        values[engine] = result["gauc"].item()
        if expected is None:
            assert values[engine] is None
        else:
            assert math.isclose(values[engine], expected, rel_tol=1e-9, abs_tol=1e-12)
    if expected is not None:
        assert abs(values["duckdb"] - values["polars"]) < 1e-9
