"""Every multi-class metric against scikit-learn, through both engines and a Parquet
file, on integer and string classes with NULLs, weights, unseen predicted classes and
empty or single-class slices; the registry-driven invariants of test_invariants.py on
class data; routing of the plain names; bad input."""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

import sqlmetrics as sm
import sqlmetrics.polars as smp
from sqlmetrics import cli

import metric_tests
from strategies import AGREEMENT, class_predictions, examples, parameters

# The one-vs-rest metrics read class scores instead of a prediction: tests/test_one_vs_rest.py checks them.
MULTICLASS = [
    name for name, spec in sm.registry().items() if spec.family == "multiclass" and "class_scores" not in spec.needs
]
REFERENCES = metric_tests.references("multiclass", only=MULTICLASS)


def every_choice(name: str) -> list[sm.MetricCall]:
    """The metric at its defaults and at every other choice of each parameter that has choices."""
    spec = sm.registry()[name]
    return [
        sm.metric(name),
        *(
            sm.metric(name, **{param.name: choice})
            for param in spec.params
            for choice in param.choices
            if choice != param.default
        ),
    ]


CALLS = [call for name in MULTICLASS for call in every_choice(name)]
ROLES = {"label": "label", "prediction": "prediction"}


def evaluate(source, metrics=CALLS, engine="duckdb", **kwargs) -> pl.DataFrame:
    return sm.evaluate(source, metrics, **ROLES, engine=engine, **kwargs)


def assert_same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    polars.testing.assert_frame_equal(left, right, rel_tol=1e-9, abs_tol=1e-9)


def is_weighted(frame: pl.DataFrame) -> bool:
    return frame["weight"].null_count() > 0 or bool((frame["weight"] != 1).any())


def test_every_multiclass_metric_is_checked():
    assert {call.spec.name for call in CALLS} == set(MULTICLASS)


# --- the reference -------------------------------------------------------------------


def sklearn_value(call: sm.MetricCall, y: list, p: list, w: np.ndarray) -> float | None:
    """The reference value (tests/metrics/multiclass/) for the used rows of one slice,
    None where sqlmetrics is NULL."""
    if len(y) == 0 or w.sum() == 0:
        return None  # scikit-learn refuses an empty input or all-zero weights
    with warnings.catch_warnings():  # undefined values and single-label confusion matrices: mapped in each module
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.filterwarnings("ignore", "A single label was found", UserWarning)
        return REFERENCES[call.spec.name](y, p, w, **call.kwargs)


def assert_close(actual, expected, what: str) -> None:
    if expected is None:
        assert actual is None, f"{what}: expected NULL, got {actual}"
    else:
        assert actual is not None and math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-9), (
            f"{what}: {actual} != {expected}"
        )


def check_against_sklearn(frame: pl.DataFrame, result: pl.DataFrame, calls: list, weighted: bool) -> None:
    assert result["slice"].to_list() == sorted(set(frame["slice"].to_list()), key=lambda s: (s is None, s))
    for row in result.iter_rows(named=True):
        rows = frame.filter(pl.col("slice").eq_missing(row["slice"]))
        used = rows.drop_nulls(["label", "prediction", *(["weight"] if weighted else [])])
        y, p = used["label"].to_list(), used["prediction"].to_list()
        w = used["weight"].to_numpy() if weighted else np.ones(used.height)
        assert (row["n_rows"], row["n_excluded"]) == (used.height, rows.height - used.height)
        for call in calls:
            assert_close(row[call.column], sklearn_value(call, y, p, w), f"{call!r} in slice {row['slice']!r}")


@st.composite
def drawn_calls(draw) -> list[sm.MetricCall]:
    """CALLS and every metric once more with parameters drawn from its spec (one column each)."""
    drawn = [sm.metric(name, **draw(parameters(sm.registry()[name]))) for name in MULTICLASS]
    return list({call.column: call for call in [*CALLS, *drawn]}.values())


@given(frame=class_predictions(), calls=drawn_calls())
def test_metrics_match_sklearn_through_parquet_in_both_engines(frame, calls, tmp_path_factory):
    path = tmp_path_factory.mktemp("pq") / "predictions.parquet"
    frame.write_parquet(path)
    weight = "weight" if is_weighted(frame) else None
    duckdb_result = evaluate(path, calls, weight=weight, by="slice", engine="duckdb")
    assert_same(duckdb_result, evaluate(path, calls, weight=weight, by="slice", engine="polars"))
    check_against_sklearn(frame, duckdb_result, calls, weight is not None)


def test_boolean_classes_and_booleans_against_integers(engine):
    # True compares equal to 1, as in scikit-learn: a boolean label and an integer
    # prediction give the numbers of two integer columns
    frame = pl.DataFrame({"label": [True, False, True, True, False], "prediction": [1, 0, 0, 1, 1]})
    as_integers = frame.with_columns(pl.col("label").cast(pl.Int64))
    assert_same(evaluate(frame, engine=engine), evaluate(as_integers, engine=engine))
    booleans = frame.with_columns(pl.col("prediction").cast(pl.Boolean))
    result = evaluate(booleans, engine=engine)
    y, p = booleans["label"].to_list(), booleans["prediction"].to_list()
    for call in CALLS:
        assert_close(result[call.column].item(), sklearn_value(call, y, p, np.ones(5)), repr(call))


def test_hand_worked_example_with_weights(engine):
    # weights 1 2 1 .5 1 1; class counts (tp, support, predicted):
    #   cat (1.5, 1.5, 2.5), dog (0, 3, 1), pig (0, 2, 3); n = 6.5, correct = 1.5
    # accuracy 1.5 / 6.5; macro precision (1.5/2.5 + 0 + 0) / 3 = 0.2;
    # macro recall (1 + 0 + 0) / 3; weighted F1: cat 2·1.5/(1.5 + 2.5) = 0.75, so 1.5·0.75 / 6.5
    frame = pl.DataFrame(
        {
            "y": ["cat", "dog", "pig", "cat", "dog", "pig"],
            "y_hat": ["cat", "pig", "dog", "cat", "cat", "dog"],
            "w": [1.0, 2.0, 1.0, 0.5, 1.0, 1.0],
        }
    )
    result = sm.evaluate(
        frame, ["accuracy", "precision", "recall", sm.multiclass_f1(average="weighted")],
        label="y", prediction="y_hat", weight="w", engine=engine,
    )  # fmt: skip
    expected = (6, 0, 1.5 / 6.5, 0.2, 1 / 3, 1.5 * 0.75 / 6.5)
    assert result.row(0) == pytest.approx(expected, abs=1e-15)


# --- the invariants of test_invariants.py, on class data -------------------------------


@examples(30, AGREEMENT)
@given(frame=class_predictions(), engine=st.sampled_from(["duckdb", "polars"]), seed=st.integers(0, 2**32 - 1))
def test_row_order_does_not_matter(frame, engine, seed):
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=seed)
    kwargs = {"weight": "weight", "by": "slice", "engine": engine}
    assert_same(evaluate(frame, **kwargs), evaluate(shuffled, **kwargs))


@examples(30, AGREEMENT)
@given(frame=class_predictions(), engine=st.sampled_from(["duckdb", "polars"]))
def test_weights_of_one_are_no_weights(frame, engine):
    ones = frame.with_columns(weight=pl.lit(1.0))
    assert_same(evaluate(ones, by="slice", engine=engine), evaluate(ones, weight="weight", by="slice", engine=engine))


@examples(30, AGREEMENT)
@given(
    frame=class_predictions(),
    scale=st.sampled_from([1e-300, 1e-200, 0.1, 1e200, 1e300]),
    engine=st.sampled_from(["duckdb", "polars"]),
)
def test_equal_weights_of_any_size_are_no_weights(frame, scale, engine):
    # products of class weights (κ's t_i·p_j, mcc's) are taken over shares of the total:
    # weights of 1e200 once gave κ NaN, of 1e-300 a κ off in its last digits
    equal = frame.with_columns(weight=pl.lit(scale))
    assert_same(evaluate(equal, by="slice", engine=engine), evaluate(equal, weight="weight", by="slice", engine=engine))


@examples(30, AGREEMENT)
@given(frame=class_predictions(), repeats=st.lists(st.integers(1, 3), min_size=40, max_size=40))
def test_integer_weight_equals_repeated_rows(frame, repeats):
    frame = frame.drop_nulls()
    weighted = frame.with_columns(weight=pl.Series(repeats[: frame.height], dtype=pl.Float64))
    repeated = weighted.select(pl.all().repeat_by(pl.col("weight").cast(pl.Int64)).explode()).drop("weight")
    metrics = pl.exclude("n_rows", "n_excluded")  # these count rows, not weight
    assert_same(
        evaluate(weighted, weight="weight", by="slice").select(metrics), evaluate(repeated, by="slice").select(metrics)
    )


@examples(15, AGREEMENT)
@given(frame=class_predictions(kind="int"), engine=st.sampled_from(["duckdb", "polars"]))
def test_composition_does_not_change_numbers(frame, engine):
    kwargs = {"weight": "weight", "by": "slice", "score": "score", "engine": engine}
    regression = ["mae", "rmse", "r2", "median_absolute_error"]
    composed = evaluate(frame, [*CALLS, *regression], **kwargs)
    for metric in [*CALLS, *regression]:
        alone = evaluate(frame, [metric], **kwargs)
        assert_same(alone, composed.select(alone.columns))


@examples(15, AGREEMENT)
@given(frame=class_predictions(kind="int", n_classes=2, unseen=False), engine=st.sampled_from(["duckdb", "polars"]))
def test_composition_with_binary_metrics_does_not_change_numbers(frame, engine):
    # 0/1 classes are binary labels too; the binary precision is named after its threshold
    binary = ["auc", "logloss", "gauc", sm.precision(threshold=0.3)]
    kwargs = {"weight": None, "by": "slice", "score": "score", "query": "slice", "engine": engine}
    composed = evaluate(frame, [*CALLS, *binary], **kwargs)
    for metric in [*CALLS, *binary]:
        alone = evaluate(frame, [metric], **kwargs)
        assert_same(alone, composed.select(alone.columns))


@examples(15, AGREEMENT)
@given(frame=class_predictions(), engine=st.sampled_from(["duckdb", "polars"]))
def test_slicing_equals_filtering(frame, engine):
    sliced = evaluate(frame, weight="weight", by="slice", engine=engine)
    for row in sliced.iter_rows(named=True):
        part = frame.filter(pl.col("slice").eq_missing(row["slice"]))
        alone = evaluate(part, weight="weight", engine=engine)
        assert_same(alone, sliced.filter(pl.col("slice").eq_missing(row["slice"])).drop("slice"))


@examples(20, AGREEMENT)
@given(frame=class_predictions())
def test_public_frame_functions_equal_evaluate(frame):
    """``smp.multiclass_f1(frame, ...)`` and the others give evaluate's numbers per slice."""
    evaluated = evaluate(frame, weight="weight", by="slice")
    for call in CALLS:
        function = getattr(smp, call.spec.name)
        computed = function(frame, label="label", prediction="prediction", weight="weight", by=["slice"], **call.kwargs)
        # slices whose rows are all excluded have no class, hence no row in the frame function
        joined = evaluated.select("slice").join(computed, on="slice", how="left", nulls_equal=True)
        assert computed.columns == ["slice", call.column]  # named as evaluate names it
        assert_same(joined, evaluated.select("slice", call.column))


def test_perfect_predictions_give_the_ideal_value(engine):
    frame = pl.DataFrame({"label": ["a", "b", "c", "a", "b", "a"], "weight": [1.0, 0.5, 2.5, 0.0, 4.0, 1.0]})
    result = evaluate(frame.with_columns(prediction=pl.col("label")), weight="weight", engine=engine)
    assert result.select(call.column for call in CALLS).row(0) == (1.0,) * len(CALLS)


def test_result_types_are_the_same_for_both_engines(engine):
    frame = pl.DataFrame({"label": [0, 1, 2, 1], "prediction": [0, 2, 2, 1]})
    schema = evaluate(frame, engine=engine).schema
    assert schema["n_rows"] == schema["n_excluded"] == pl.Int64
    assert all(schema[call.column] == pl.Float64 for call in CALLS)


# --- undefined values, NULLs and unseen classes ------------------------------------------


def test_empty_source_and_single_class_slices_are_null_where_undefined(engine):
    empty = evaluate(pl.DataFrame(schema={"label": pl.String, "prediction": pl.String}), engine=engine)
    assert empty.row(0) == (0, 0, *(None,) * len(CALLS))
    # one class on both sides: accuracy and every precision/recall/F is 1, MCC 0/0 and κ's 1 − p_e = 0
    one_class = evaluate(pl.DataFrame({"label": ["a", "a"], "prediction": ["a", "a"]}), engine=engine)
    assert one_class.select("mcc", "cohen_kappa").row(0) == (None, None)
    assert one_class["accuracy"].item() == one_class["f1"].item() == 1.0


def test_null_classes_are_excluded_and_counted(engine):
    # rows 2 (NULL prediction) and 4 (NULL label) are left out: the rest is a, b right and b wrong
    frame = pl.DataFrame({"label": ["a", "b", "b", None, "b"], "prediction": ["a", None, "b", "a", "a"]})
    result = evaluate(frame, ["accuracy"], engine=engine)
    assert result.row(0) == (3, 2, pytest.approx(2 / 3, abs=1e-15))


def test_a_predicted_class_never_seen_as_label_is_a_false_positive(engine):
    # labels a a b b, predictions a x b b: x has support 0 and precision 0 (1 predicted, 0 right)
    # and no recall; macro precision (1 + 0 + 1) / 3, macro recall (1/2 + 1) / 2 over a and b
    frame = pl.DataFrame({"label": ["a", "a", "b", "b"], "prediction": ["a", "x", "b", "b"]})
    result = evaluate(frame, ["accuracy", "precision", "recall"], engine=engine)
    assert result.row(0) == pytest.approx((4, 0, 3 / 4, 2 / 3, 3 / 4), abs=1e-15)


def test_weighted_average_falls_back_to_the_mean_when_no_defined_class_has_support(engine):
    # the only class with a precision is x, predicted once and never a label (support 0):
    # scikit-learn's weighted average then takes the plain mean of the defined values, 0
    frame = pl.DataFrame({"label": ["a"], "prediction": ["x"]})
    result = evaluate(frame, [sm.multiclass_precision(average="weighted")], engine=engine)
    assert result["precision_weighted"].item() == 0.0


# --- names, columns and routing ------------------------------------------------------------


def test_plain_names_mean_the_multiclass_metrics_when_a_prediction_is_bound(engine):
    frame = pl.DataFrame({"label": [0, 1, 1, 0], "prediction": [0, 1, 0, 0], "score": [0.2, 0.9, 0.4, 0.6]})
    routed = evaluate(frame, ["f1", "mcc"], engine=engine)
    explicit = evaluate(frame, [sm.multiclass_f1(), sm.multiclass_mcc()], engine=engine)
    assert routed.columns == explicit.columns == ["n_rows", "n_excluded", "f1", "mcc"]
    assert_same(routed, explicit)
    # without a prediction column "f1" is the binary metric of the score; a call is kept as given
    binary = sm.evaluate(frame, ["f1"], label="label", score="score", engine=engine)
    assert_same(evaluate(frame, [sm.f1()], score="score", engine=engine), binary)
    with pytest.raises(sm.InvalidParameterError, match=r"multiclass_f1\(average='macro'\) and f1\(threshold=0.5\)"):
        evaluate(frame, ["f1", sm.f1()], score="score", engine=engine)


def test_multiclass_metrics_need_a_prediction():
    frame = pl.DataFrame({"label": [0, 1], "prediction": [0, 1]})
    message = r"multiclass_f1, cohen_kappa: a multi-class metric compares .* pass prediction="
    with pytest.raises(sm.InvalidParameterError, match=message):
        sm.evaluate(frame, [sm.multiclass_f1(), "cohen_kappa"], label="label")


def test_sql_compares_classes_as_they_are():
    sql = sm.to_sql(["f1", "accuracy"], source="preds.parquet", label="y", prediction="y_hat")
    assert '"y" AS true_class, "y_hat" AS predicted_class' in sql
    assert "AS DOUBLE) AS label" not in sql and "AS score" not in sql  # no score is read


# --- bad input -----------------------------------------------------------------------


def test_missing_prediction_column_is_named_with_the_columns_that_exist(engine):
    frame = pl.DataFrame({"y": ["a"], "y_hat": ["a"]})
    with pytest.raises(sm.ColumnNotFoundError, match=r"prediction column 'pred' not found; the source has: y, y_hat"):
        sm.evaluate(frame, ["f1"], label="y", prediction="pred", engine=engine)


def test_label_and_prediction_of_different_kinds_is_an_error(engine):
    frame = pl.DataFrame({"y": [1, 2], "y_hat": ["1", "2"]})
    message = (
        r"label column 'y' \((BIGINT|Int64)\) and prediction column 'y_hat' \((VARCHAR|String)\) cannot be compared"
    )
    with pytest.raises(sm.SqlMetricsError, match=message):
        sm.evaluate(frame, ["f1"], label="y", prediction="y_hat", engine=engine)
    dates = frame.with_columns(y_hat=pl.date(2024, 1, pl.col("y")))
    with pytest.raises(sm.SqlMetricsError, match=r"prediction column 'y_hat' has type (DATE|Date); a class must be"):
        sm.evaluate(dates, ["f1"], label="y", prediction="y_hat", engine=engine)


def test_string_classes_with_a_binary_metric_is_a_type_error(engine):
    frame = pl.DataFrame({"y": ["a", "b"], "y_hat": ["a", "a"], "score": [0.1, 0.9]})
    with pytest.raises(sm.SqlMetricsError, match=r"label column 'y' has type (VARCHAR|String); expected a number"):
        sm.evaluate(frame, ["f1", "auc"], label="y", prediction="y_hat", score="score", engine=engine)


def test_negative_weight_is_an_error(engine):
    frame = pl.DataFrame({"y": ["a", "b"], "y_hat": ["a", "a"], "w": [1.0, -1.0]})
    with pytest.raises(sm.InvalidInputError, match=r"weight column 'w' must be finite and >= 0: 1 row is not"):
        sm.evaluate(frame, ["f1"], label="y", prediction="y_hat", weight="w", engine=engine)


def test_command_line_binds_the_prediction(tmp_path, capsys):
    path = tmp_path / "predictions.parquet"
    frame = pl.DataFrame({"y": ["a", "b", "c", "b"], "y_hat": ["a", "c", "c", "b"], "w": [1.0, 2.0, 0.5, 1.0]})
    frame.write_parquet(path)
    argv = [str(path), "--metrics", "accuracy,f1:average=weighted,mcc", "--label", "y", "--prediction", "y_hat"]
    assert cli.main(["eval", *argv, "--weight", "w", "--format", "csv"]) == 0
    expected = sm.evaluate(
        path, ["accuracy", sm.multiclass_f1(average="weighted"), "mcc"], label="y", prediction="y_hat", weight="w"
    )
    assert_same(pl.read_csv(io.StringIO(capsys.readouterr().out)), expected)
    assert cli.main(["sql", *argv]) == 0
    assert '"y_hat" AS predicted_class' in capsys.readouterr().out
