"""sm.confusion_matrix and sm.per_class against scikit-learn, through both engines, on
the class data of test_multiclass_reference.py."""

from __future__ import annotations

import doctest
import io
import math

import numpy as np
import polars as pl
import polars.testing
import pytest
from hypothesis import given
from sklearn import metrics as skm

import sqlmetrics as sm
import sqlmetrics.api
from sqlmetrics import cli

from strategies import class_predictions

# scikit-learn warns where a class's value is NaN (compared with NULL below) and on one-class input
pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
    pytest.mark.filterwarnings("ignore:A single label was found:UserWarning"),
]
ROLES = {"label": "label", "prediction": "prediction"}
PER_CLASS = ["precision", "recall", "f1", sm.multiclass_fbeta(beta=2.0), sm.multiclass_fbeta(beta=0.5)]


def used_rows(frame: pl.DataFrame, slice_value, weighted: bool) -> tuple[list, list, np.ndarray]:
    rows = frame.filter(pl.col("slice").eq_missing(slice_value)).drop_nulls(
        ["label", "prediction", *(["weight"] if weighted else [])]
    )
    w = rows["weight"].to_numpy() if weighted else np.ones(rows.height)
    return rows["label"].to_list(), rows["prediction"].to_list(), w


def assert_close(actual, expected, what: str) -> None:
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        assert actual is None, f"{what}: expected NULL, got {actual}"
    else:
        assert actual is not None and math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-9), (
            f"{what}: {actual} != {expected}"
        )


@given(frame=class_predictions())
def test_confusion_matrix_matches_sklearn(frame):
    weighted = frame["weight"].null_count() > 0 or bool((frame["weight"] != 1).any())
    weight = "weight" if weighted else None
    result = sm.confusion_matrix(frame, **ROLES, weight=weight, by="slice")
    polars.testing.assert_frame_equal(
        result, sm.confusion_matrix(frame, **ROLES, weight=weight, by="slice", engine="polars")
    )
    assert result.columns == ["slice", "label", "prediction", "n", *(["weight"] if weighted else [])]
    assert result.select("slice", "label", "prediction").is_unique().all()
    assert result.equals(result.sort("slice", "label", "prediction", nulls_last=True))
    for slice_value in frame["slice"].unique().to_list():
        y, p, w = used_rows(frame, slice_value, weighted)
        cells = result.filter(pl.col("slice").eq_missing(slice_value))
        if not y:
            assert cells.is_empty()
            continue
        classes = sorted(set(y) | set(p))
        index = {c: i for i, c in enumerate(classes)}
        counts = skm.confusion_matrix(y, p, labels=classes)
        # every cell that occurs is listed; the others are 0 in scikit-learn's matrix
        assert cells["n"].sum() == counts.sum() == len(y)
        for cell in cells.iter_rows(named=True):
            assert cell["n"] == counts[index[cell["label"]], index[cell["prediction"]]] > 0
        if weighted and w.sum() > 0:  # scikit-learn refuses all-zero weights
            weights = skm.confusion_matrix(y, p, labels=classes, sample_weight=w)
            for cell in cells.iter_rows(named=True):
                assert_close(cell["weight"], weights[index[cell["label"]], index[cell["prediction"]]], repr(cell))


@given(frame=class_predictions())
def test_per_class_matches_sklearn_average_none(frame, tmp_path_factory):
    path = tmp_path_factory.mktemp("pq") / "predictions.parquet"
    frame.write_parquet(path)
    result = sm.per_class(path, PER_CLASS, **ROLES, weight="weight", by="slice")
    polars.testing.assert_frame_equal(
        result, sm.per_class(path, PER_CLASS, **ROLES, weight="weight", by="slice", engine="polars"), rel_tol=1e-9
    )
    assert result.columns == [
        "slice",
        "class",
        "support",
        "precision",
        "recall",
        "f1",
        "fbeta_beta_2",
        "fbeta_beta_0p5",
    ]
    for slice_value in frame["slice"].unique().to_list():
        y, p, w = used_rows(frame, slice_value, weighted=True)
        rows = result.filter(pl.col("slice").eq_missing(slice_value))
        classes = sorted(set(y) | set(p))  # scikit-learn's labels=None: sorted, present as label or prediction
        assert rows["class"].to_list() == classes
        if w.sum() == 0:  # scikit-learn refuses all-zero weights: every class has support 0 and no value
            assert rows.select("support").to_series().to_list() == [0.0] * len(classes)
            assert rows.drop("slice", "class", "support").null_count().row(0) == (len(classes),) * 5
            continue
        for column, beta in [("f1", 1.0), ("fbeta_beta_2", 2.0), ("fbeta_beta_0p5", 0.5)]:
            precision, recall, fscore, support = skm.precision_recall_fscore_support(
                y, p, beta=beta, average=None, sample_weight=w, zero_division=np.nan
            )
            for i, row in enumerate(rows.iter_rows(named=True)):
                what = f"class {row['class']!r} in slice {slice_value!r}"
                assert_close(row["support"], support[i], f"support of {what}")
                assert_close(row["precision"], precision[i], f"precision of {what}")
                assert_close(row["recall"], recall[i], f"recall of {what}")
                assert_close(row[column], fscore[i], f"{column} of {what}")


def test_unweighted_tables_have_no_weight_column_and_count_rows(engine):
    # labels a a b, predictions a b b: cells (a, a) (a, b) (b, b) of one row each; the NULL row is left out
    frame = pl.DataFrame({"label": ["a", "a", "b", None], "prediction": ["a", "b", "b", "a"]})
    result = sm.confusion_matrix(frame, **ROLES, engine=engine)
    assert result.rows() == [("a", "a", 1), ("a", "b", 1), ("b", "b", 1)]
    # a: support 2, precision 1/1, recall 1/2; b: support 1, precision 1/2, recall 1/1
    per_class = sm.per_class(frame, ["precision", "recall"], **ROLES, engine=engine)
    assert per_class.rows() == [("a", 2, 1.0, 0.5), ("b", 1, 0.5, 1.0)]
    assert per_class.schema["support"] == pl.Int64  # a count of rows without weights


def test_per_class_takes_only_per_class_metrics_without_average():
    frame = pl.DataFrame({"label": ["a"], "prediction": ["a"]})
    with pytest.raises(sm.InvalidParameterError, match=r"multiclass_accuracy\(\) has no per-class value"):
        sm.per_class(frame, ["precision", "accuracy"], **ROLES)
    with pytest.raises(sm.InvalidParameterError, match=r"per_class reports each class's value, drop average="):
        sm.per_class(frame, [sm.multiclass_f1(average="weighted")], **ROLES)


def test_slices_must_not_be_named_like_the_table_columns():
    frame = pl.DataFrame({"label": ["a"], "prediction": ["a"], "n": [1]})
    with pytest.raises(sm.InvalidParameterError, match=r"slice column\(s\) \['n'\] clash"):
        sm.confusion_matrix(frame, **ROLES, by="n")


def test_bad_weights_and_types_are_errors_as_in_evaluate(engine):
    frame = pl.DataFrame({"label": ["a", "b"], "prediction": ["a", "a"], "w": [1.0, -2.0], "p": [1, 2]})
    with pytest.raises(sm.InvalidInputError, match=r"weight column 'w' must be finite and >= 0: 1 row is not"):
        sm.confusion_matrix(frame, **ROLES, weight="w", engine=engine)
    with pytest.raises(
        sm.SqlMetricsError, match=r"label column 'label' \((VARCHAR|String)\) and prediction column 'p'"
    ):
        sm.per_class(frame, ["f1"], label="label", prediction="p", engine=engine)


def test_api_examples_run():
    result = doctest.testmod(sqlmetrics.api, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 3 and result.failed == 0


def test_classes_keep_their_types_and_compare_by_value(engine):
    # integer labels and float predictions: 2 == 2.0; cells (1, 1.0) (2, 1.0) (2, 2.0);
    # class 1: support 1, precision 1/2 (two predicted 1.0); class 2: support 2, precision 1/1
    frame = pl.DataFrame({"label": [1, 2, 2], "prediction": [1.0, 2.0, 1.0]})
    matrix = sm.confusion_matrix(frame, **ROLES, engine=engine)
    assert (matrix.schema["label"], matrix.schema["prediction"]) == (pl.Int64, pl.Float64)
    assert matrix.rows() == [(1, 1.0, 1), (2, 1.0, 1), (2, 2.0, 1)]
    per_class = sm.per_class(frame, ["precision"], **ROLES, engine=engine)
    assert per_class.schema["class"] == pl.Float64  # the common type, as SQL's UNION gives it
    assert per_class.rows() == [(1.0, 1.0, 0.5), (2.0, 2.0, 1.0)]


# --- the command line: `sqlmetrics confusion-matrix` and `sqlmetrics per-class` ---------


@pytest.fixture(scope="module")
def predictions_file(tmp_path_factory):
    """Three classes over two regions, with weights (the tables' numbers are the API's)."""
    frame = pl.DataFrame(
        {
            "y": ["a", "b", "c", "b", "a", "c", "c", "b"],
            "y_hat": ["a", "c", "c", "b", "b", "c", "a", "b"],
            "w": [1.0, 2.0, 0.5, 1.0, 3.0, 1.5, 0.25, 1.0],
            "region": ["n", "n", "n", "n", "s", "s", "s", "s"],
        }
    )
    path = tmp_path_factory.mktemp("classes") / "predictions.parquet"
    frame.write_parquet(path)
    return path


def command_line(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_command_line_confusion_matrix_is_the_api_table(capsys, predictions_file, engine):
    argv = ["--label", "y", "--prediction", "y_hat", "--weight", "w", "--by", "region", "--engine", engine]
    code, out, err = command_line(capsys, "confusion-matrix", predictions_file, *argv, "--format", "csv")
    assert (code, err) == (0, "")
    expected = sm.confusion_matrix(predictions_file, label="y", prediction="y_hat", weight="w", by="region")
    polars.testing.assert_frame_equal(pl.read_csv(io.StringIO(out)), expected)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_command_line_per_class_is_the_api_table(capsys, predictions_file, tmp_path, engine):
    out_path = tmp_path / "per_class.parquet"
    argv = ["--label", "y", "--prediction", "y_hat", "--by", "region", "--engine", engine]
    specs = "precision,recall,f1,fbeta:beta=2"
    code, out, err = command_line(
        capsys, "per-class", predictions_file, "-m", specs, *argv, "--format", "parquet", "-o", out_path
    )
    assert (code, out, err) == (0, "", "")
    metrics = ["precision", "recall", "f1", sm.multiclass_fbeta(beta=2.0)]
    expected = sm.per_class(predictions_file, metrics, label="y", prediction="y_hat", by="region")
    polars.testing.assert_frame_equal(pl.read_parquet(out_path), expected)


@pytest.mark.parametrize(
    ("argv", "status", "fragment"),
    [
        (["confusion-matrix", "{path}", "--label", "y"], 2, "--prediction"),
        (["confusion-matrix", "{path}", "--label", "nope", "--prediction", "y_hat"], 1, "label column 'nope'"),
        (["confusion-matrix", "{path}", "--prediction", "y_hat", "--label", "y", "--format", "parquet"], 2, "--output"),
        (["per-class", "{path}", "--label", "y", "--prediction", "y_hat"], 2, "--metrics"),
        (["per-class", "{path}", "-m", "auc", "--label", "y", "--prediction", "y_hat"], 1, "no per-class value"),
        (["per-class", "{path}", "-m", "f1:average=micro", "--label", "y", "--prediction", "y_hat"], 1, "drop average"),
    ],
)
def test_command_line_table_errors_are_one_line(capsys, predictions_file, argv, status, fragment):
    code, out, err = command_line(capsys, *(arg.format(path=predictions_file) for arg in argv))
    assert code == status and out == ""
    assert err.startswith("sqlmetrics: error: ") and len(err.strip().splitlines()) == 1
    assert fragment in err
