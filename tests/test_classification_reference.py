"""Every classification metric against its reference (tests/metrics/classification/, from
scikit-learn or numpy), through both engines, sliced, with and without weights, with
parameters drawn from each spec, on data with heavy ties, NULLs and one-class slices."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sqlmetrics as sm

import metric_tests
from strategies import AGREEMENT, examples, impressions, parameters

REGISTRY = sm.registry()
REFERENCES = metric_tests.references("classification")
# Metrics of the rows; a metric that needs a query (gauc) is checked in test_gauc.py.
ROW_METRICS = sorted(name for name in REFERENCES if "query" not in REGISTRY[name].needs)
DEFAULT_CALLS = [sm.metric(name) for name in ROW_METRICS]


@st.composite
def classification_calls(draw) -> list[sm.MetricCall]:
    """Every metric of the rows at its defaults and once more with parameters drawn from
    its spec's choices and bounds (one column each: a drawn call equal to the default is
    dropped)."""
    drawn = [sm.metric(name, **draw(parameters(REGISTRY[name]))) for name in ROW_METRICS]
    return list({call.column: call for call in [*DEFAULT_CALLS, *drawn]}.values())


def slice_arrays(frame: pl.DataFrame, weighted: bool) -> dict:
    """The rows sqlmetrics uses (no NULL in a bound column) as numpy arrays."""
    used = frame.drop_nulls(["label", "score", *(["weight"] if weighted else [])])
    weights = used["weight"].to_numpy() if weighted else np.ones(used.height)
    return {"y": used["label"].to_numpy(), "s": used["score"].to_numpy(), "w": weights}


def assert_close(actual, expected, what: str) -> None:
    if expected is None:
        assert actual is None, f"{what}: expected NULL, got {actual}"
    else:
        assert actual is not None and math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-9), (
            f"{what}: {actual} != {expected}"
        )


def check_against_reference(frame: pl.DataFrame, result: pl.DataFrame, calls: list, weighted: bool) -> None:
    for row in result.iter_rows(named=True):
        rows = frame.filter(pl.col("slice").eq_missing(row["slice"]))
        arrays = slice_arrays(rows, weighted)
        assert row["n_rows"] == len(arrays["y"])
        assert row["n_excluded"] == rows.height - len(arrays["y"])
        for call in calls:
            expected = REFERENCES[call.spec.name](**arrays, **call.kwargs) if len(arrays["y"]) else None
            assert_close(row[call.column], expected, f"{call!r} in slice {row['slice']!r}")


@given(frame=impressions(), calls=classification_calls(), engine=st.sampled_from(["duckdb", "polars"]))
def test_metrics_match_reference(frame, calls, engine):
    weighted = frame["weight"].null_count() > 0 or bool((frame["weight"] != 1).any())
    result = sm.evaluate(
        frame, calls, label="label", score="score", weight="weight" if weighted else None, by="slice", engine=engine
    )
    assert result["slice"].to_list() == sorted(set(frame["slice"].to_list()), key=lambda s: (s is None, s))
    check_against_reference(frame, result, calls, weighted)


@examples(20, AGREEMENT)  # reading, not the formulas (test_metrics_match_reference): fewer examples
@given(frame=impressions(max_rows=25))
def test_parquet_equals_in_memory(frame, tmp_path_factory):
    path = tmp_path_factory.mktemp("pq") / "impressions.parquet"
    frame.write_parquet(path)
    for engine in ("duckdb", "polars"):
        from_file = sm.evaluate(path, DEFAULT_CALLS, weight="weight", by="slice", engine=engine)
        in_memory = sm.evaluate(frame.to_arrow(), DEFAULT_CALLS, weight="weight", by="slice", engine=engine)
        pl.testing.assert_frame_equal(from_file, in_memory, rel_tol=1e-9, abs_tol=1e-9)
        check_against_reference(frame, from_file, DEFAULT_CALLS, weighted=True)


@pytest.mark.parametrize("label", ["click_bool", "click_float"])
def test_boolean_and_float_labels(label, engine):
    frame = pl.DataFrame({"click_bool": [True, False, True, False], "score": [0.9, 0.1, 0.4, 0.6]})
    frame = frame.with_columns(click_float=pl.col("click_bool").cast(pl.Float64))
    result = sm.evaluate(frame, ["auc", "precision"], label=label, engine=engine)
    arrays = {"y": frame["click_float"].to_numpy(), "s": frame["score"].to_numpy(), "w": np.ones(4)}
    assert_close(result["auc"].item(), REFERENCES["auc"](**arrays), "auc")
    assert_close(result["precision"].item(), REFERENCES["precision"](**arrays), "precision")


def test_seed_auc_example(engine):
    # positives .5 .5 .7 .8 against negatives .3 .5 .5: 4·3 = 12 pairs; .7 and .8 win
    # all 3 (6), each .5 wins against .3 and ties the two .5 (2 · (1 + 2·½) = 4): 10/12
    frame = pl.DataFrame({"label": [0, 1, 1, 0, 0, 1, 1], "score": [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8]})
    assert sm.evaluate(frame, ["auc"], engine=engine)["auc"].item() == pytest.approx(10 / 12, abs=1e-15)
