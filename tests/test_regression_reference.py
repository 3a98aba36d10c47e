"""Every regression metric against scikit-learn (or numpy), through both engines, sliced,
with and without weights, on data with ties, zero targets, NULLs, zero weights and
empty or constant slices."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm

import sqlmetrics as sm

from metric_tests import references
from strategies import AGREEMENT, examples, regression_rows

REGRESSION = [name for name, spec in sm.registry().items() if spec.family == "regression"]


REFERENCES = references("regression")


def test_every_metric_has_a_reference():
    assert set(REGRESSION) == set(REFERENCES)


def assert_close(actual, expected, what: str) -> None:
    if expected is None:
        assert actual is None, f"{what}: expected NULL, got {actual}"
    else:
        assert actual is not None and math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-9), (
            f"{what}: {actual} != {expected}"
        )


def check_against_reference(frame: pl.DataFrame, result: pl.DataFrame, weighted: bool) -> None:
    for row in result.iter_rows(named=True):
        rows = frame.filter(pl.col("slice").eq_missing(row["slice"]))
        used = rows.drop_nulls(["label", "score", *(["weight"] if weighted else [])])
        y, p = used["label"].to_numpy(), used["score"].to_numpy()
        w = used["weight"].to_numpy() if weighted else np.ones(used.height)
        assert (row["n_rows"], row["n_excluded"]) == (used.height, rows.height - used.height)
        assert row["mape_skipped"] == int((y == 0).sum())
        for name in REGRESSION:
            expected = REFERENCES[name](y, p, w) if used.height else None
            assert_close(row[name], expected, f"{name} in slice {row['slice']!r}")


@given(frame=regression_rows(), engine=st.sampled_from(["duckdb", "polars"]))
def test_metrics_match_reference(frame, engine):
    weighted = frame["weight"].null_count() > 0 or bool((frame["weight"] != 1).any())
    result = sm.evaluate(frame, REGRESSION, weight="weight" if weighted else None, by="slice", engine=engine)
    check_against_reference(frame, result, weighted)


@examples(60, AGREEMENT)
@given(frame=regression_rows(max_rows=25))
def test_parquet_equals_in_memory(frame, tmp_path_factory):
    path = tmp_path_factory.mktemp("pq") / "predictions.parquet"
    frame.write_parquet(path)
    for engine in ("duckdb", "polars"):
        from_file = sm.evaluate(path, REGRESSION, weight="weight", by="slice", engine=engine)
        in_memory = sm.evaluate(frame.to_arrow(), REGRESSION, weight="weight", by="slice", engine=engine)
        pl.testing.assert_frame_equal(from_file, in_memory, rel_tol=1e-9, abs_tol=1e-9)
        check_against_reference(frame, from_file, weighted=True)


@given(frame=regression_rows(weighted=False, nulls=False))
def test_unweighted_median_is_numpys_median(frame):
    for engine in ("duckdb", "polars"):
        result = sm.evaluate(frame, ["median_absolute_error"], engine=engine)["median_absolute_error"].item()
        expected = float(np.median(np.abs(frame["score"] - frame["label"]))) if frame.height else None
        assert_close(result, expected, engine)


def test_median_between_two_middle_errors(engine):
    # errors 1 2 3 4 with weights 1 1 1 1: half the weight (2) is reached exactly at 2,
    # so the median is (2 + 3) / 2; weights 1 1 2 1 (half = 2.5): 3 is the first past it
    frame = pl.DataFrame({"label": [0.0] * 4, "score": [1.0, 2.0, 3.0, 4.0], "weight": [1.0, 1.0, 1.0, 1.0]})
    assert sm.evaluate(frame, ["median_absolute_error"], engine=engine).item(0, "median_absolute_error") == 2.5
    heavier = frame.with_columns(weight=pl.Series([1.0, 1.0, 2.0, 1.0]))
    result = sm.evaluate(heavier, ["median_absolute_error"], weight="weight", engine=engine)
    assert result.item(0, "median_absolute_error") == 3.0


def test_zero_targets_are_left_out_of_mape_and_counted(engine):
    # |90 − 100| / 100 = 0.1 and |3 − 2| / 2 = 0.5: mean 0.3; the row with target 0 is skipped
    frame = pl.DataFrame({"label": [100.0, 2.0, 0.0, 0.0], "score": [90.0, 3.0, 5.0, None]})
    result = sm.evaluate(frame, ["mape"], engine=engine)
    assert result.select("n_rows", "mape_skipped").row(0) == (3, 1)
    assert result["mape"].item() == pytest.approx(0.3, abs=1e-15)
    only_zeros = sm.evaluate(frame.filter(pl.col("label") == 0), ["mape"], engine=engine)
    assert only_zeros.select("mape", "mape_skipped").row(0) == (None, 1)


def test_r2_is_null_for_a_constant_target(engine):
    frame = pl.DataFrame({"label": [2.0, 2.0, 2.0], "score": [2.0, 1.0, 3.0]})
    assert sm.evaluate(frame, ["r2"], engine=engine)["r2"].item() is None


def test_r2_is_stable_for_targets_far_from_zero(engine):
    # targets 1e9 + (0, 1, 2): Σy² − (Σy)²/n loses every digit in float64, the two-pass
    # spread keeps them: SS_tot = 2, SS_res = 0.25 + 0 + 0.25, R² = 1 − 0.5 / 2
    frame = pl.DataFrame({"label": [1e9, 1e9 + 1, 1e9 + 2], "score": [1e9 + 0.5, 1e9 + 1, 1e9 + 1.5]})
    assert sm.evaluate(frame, ["r2"], engine=engine)["r2"].item() == pytest.approx(0.75, abs=1e-12)


def test_composes_with_classification_on_a_binary_target(engine):
    # a probability is also a prediction of the 0/1 label: mse equals brier
    frame = pl.DataFrame({"label": [0, 1, 1, 0, 1], "score": [0.1, 0.8, 0.4, 0.3, 0.9]})
    result = sm.evaluate(frame, ["mse", "brier", "auc", "mae"], engine=engine)
    assert result["mse"].item() == pytest.approx(result["brier"].item(), rel=1e-12)
    assert result["mae"].item() == pytest.approx(skm.mean_absolute_error(frame["label"], frame["score"]), rel=1e-12)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_target_or_prediction_is_an_error(bad, engine):
    frame = pl.DataFrame({"price": [1.0, bad, 3.0, bad], "guess": [1.5, 2.0, 2.5, 3.0]})
    message = rf"label column 'price' must be a finite number \(for mae, r2\): 2 rows are not, e\.g\. {bad}"
    with pytest.raises(sm.InvalidInputError, match=message.replace("inf", "-?inf")):
        sm.evaluate(frame, ["mae", "r2"], label="price", score="guess", engine=engine)
    swapped = frame.rename({"price": "guess", "guess": "price"})
    with pytest.raises(sm.InvalidInputError, match=r"score column 'guess' must (not be NaN|be finite).*2 rows are not"):
        sm.evaluate(swapped, ["mae", "r2"], label="price", score="guess", engine=engine)


def test_missing_target_column_is_named(engine):
    frame = pl.DataFrame({"price": [1.0], "guess": [1.5]})
    with pytest.raises(sm.ColumnNotFoundError, match=r"label column 'target' not found; the source has: price, guess"):
        sm.evaluate(frame, ["rmse"], label="target", score="guess", engine=engine)


def test_a_classification_metric_still_checks_its_labels_next_to_regression(engine):
    frame = pl.DataFrame({"y": [0.0, 1.0, 2.5], "p": [0.1, 0.9, 0.5]})
    assert sm.evaluate(frame, ["mae"], label="y", score="p", engine=engine)["mae"].item() == pytest.approx(2.2 / 3)
    with pytest.raises(sm.InvalidInputError, match=r"label column 'y' must be 0 or 1 .*\(for auc\): 1 row is not"):
        sm.evaluate(frame, ["mae", "auc"], label="y", score="p", engine=engine)
