"""One-vs-rest multi-class AUC and average precision against scikit-learn
(``roc_auc_score(multi_class="ovr")`` and ``average_precision_score`` on
``label_binarize``), macro and weighted, with and without weights, tied scores, NULLs,
slices and degenerate classes, through both engines, both shapes of class scores (wide
columns, a long table) and Parquet files; composition; routing; bad input."""

from __future__ import annotations

import doctest
import math

import numpy as np
import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.preprocessing import label_binarize

import sqlmetrics as sm
import sqlmetrics.polars as smp
from sqlmetrics.metrics.multiclass import class_scores as class_scores_module
from sqlmetrics.registry import resolve

import metric_tests
from strategies import AGREEMENT, class_score_rows, examples, ovr_score_column

ONE_VS_REST = [name for name, spec in sm.registry().items() if "class_scores" in spec.needs]
# The plain names (routed with class scores bound) and every average.
CALLS = resolve(
    [
        "auc",
        "average_precision",
        sm.multiclass_auc(average="weighted"),
        sm.multiclass_average_precision(average="weighted"),
    ],
    bound=("class_scores",),
)


def test_every_one_vs_rest_metric_is_checked():
    assert {call.spec.name for call in CALLS} == set(ONE_VS_REST)
    assert [call.column for call in CALLS] == ["auc", "average_precision", "auc_weighted", "average_precision_weighted"]


def wide(classes: list) -> dict:
    return {cls: ovr_score_column(cls) for cls in classes}


def long_table(frame: pl.DataFrame, classes: list) -> pl.DataFrame:
    """The wide scores as a long table (id, class, score), one row per row and class."""
    parts = [
        frame.select(
            "id", pl.lit(cls, dtype=frame.schema["label"]).alias("class"), pl.col(ovr_score_column(cls)).alias("score")
        )
        for cls in classes
    ]
    return pl.concat(parts)


def shapes(frame: pl.DataFrame, classes: list, long_source=None) -> dict:
    long = long_table(frame, classes) if long_source is None else long_source
    return {"wide": wide(classes), "long": sm.long_scores(long, row_id="id")}


def evaluate(source, class_scores, metrics=CALLS, engine="duckdb", **kwargs) -> pl.DataFrame:
    return sm.evaluate(source, metrics, label="label", class_scores=class_scores, engine=engine, **kwargs)


def assert_same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    polars.testing.assert_frame_equal(left, right, rel_tol=1e-9, abs_tol=1e-9)


def is_weighted(frame: pl.DataFrame) -> bool:
    return frame["weight"].null_count() > 0 or bool((frame["weight"] != 1).any())


# --- the reference -------------------------------------------------------------------


OVR_MODULES = {name: module for name, module in metric_tests.modules("multiclass").items() if name in ONE_VS_REST}


def per_class_reference(name: str, y: np.ndarray, scores: np.ndarray, w: np.ndarray, classes: list):
    """Each class's binary value (its module's PER_CLASS) and true weight, None for a degenerate class."""
    values = []
    for j, cls in enumerate(classes):
        positive = y == cls
        support, rest = w[positive].sum(), w[~positive].sum()
        if support == 0 or rest == 0:
            values.append((None, support))
            continue
        values.append((OVR_MODULES[name].PER_CLASS(positive, scores[:, j], w), support))
    return values


def sklearn_multiclass(name: str, average: str, y: np.ndarray, scores: np.ndarray, w: np.ndarray, classes: list):
    """scikit-learn's own multi-class call (its module's MULTICLASS); its classes must be sorted."""
    order = sorted(range(len(classes)), key=lambda j: classes[j])
    return OVR_MODULES[name].MULTICLASS(y, scores[:, order], w, [classes[j] for j in order], average)


def expected_row(call: sm.MetricCall, y, scores, w, classes) -> tuple:
    """(value, classes averaged, classes skipped): degenerate classes left out; where no
    class is degenerate and there are at least three, also scikit-learn's multi-class
    call itself (with two classes label_binarize gives one column)."""
    name, average = call.spec.name, call.kwargs["average"]
    if len(y) == 0:
        return None, 0, 0
    values = per_class_reference(name, y, scores, w, classes)
    defined = [(v, s) for v, s in values if v is not None]
    skipped = len(values) - len(defined)
    if not defined:
        return None, 0, skipped
    if average == "macro":
        value = sum(v for v, _ in defined) / len(defined)
    else:
        value = sum(v * s for v, s in defined) / sum(s for _, s in defined)
    if skipped == 0 and len(classes) >= 3:
        direct = sklearn_multiclass(name, average, y, scores, w, classes)
        assert math.isclose(direct, value, rel_tol=1e-9, abs_tol=1e-9), (direct, value)
    return value, len(defined), skipped


def check_against_sklearn(frame: pl.DataFrame, classes: list, result: pl.DataFrame, weighted: bool) -> None:
    assert result["slice"].to_list() == sorted(set(frame["slice"].to_list()), key=lambda s: (s is None, s))
    columns = [ovr_score_column(cls) for cls in classes]
    for row in result.iter_rows(named=True):
        rows = frame.filter(pl.col("slice").eq_missing(row["slice"]))
        used = rows.drop_nulls(["label", *columns, *(["weight"] if weighted else [])])
        y = np.array(used["label"].to_list())
        scores = used.select(columns).to_numpy()
        w = used["weight"].to_numpy() if weighted else np.ones(used.height)
        assert (row["n_rows"], row["n_excluded"]) == (used.height, rows.height - used.height)
        for call in CALLS:
            label = call.column
            value, n_classes, skipped = expected_row(call, y, scores, w, classes)
            what = f"{label} in slice {row['slice']!r}"
            if value is None:
                assert row[label] is None, f"{what}: expected NULL, got {row[label]}"
            else:
                assert row[label] is not None and math.isclose(row[label], value, rel_tol=1e-9, abs_tol=1e-9), (
                    f"{what}: {row[label]} != {value}"
                )
            assert (row[f"{label}_classes"], row[f"{label}_skipped"]) == (n_classes, skipped), what


@given(data=class_score_rows())
def test_metrics_match_sklearn_in_both_engines_and_both_shapes(data):
    frame, classes = data
    weight = "weight" if is_weighted(frame) else None
    results = [
        evaluate(frame, class_scores, weight=weight, by="slice", engine=engine)
        for class_scores in shapes(frame, classes).values()
        for engine in ("duckdb", "polars")
    ]
    for other in results[1:]:
        assert_same(results[0], other)
    check_against_sklearn(frame, classes, results[0], weight is not None)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_larger_random_data_equals_sklearns_own_multiclass_calls(seed, engine):
    # 600 rows, 4 classes, probabilities on a coarse grid (many ties), weights, 3 slices:
    # every class has positives and negatives in every slice, so scikit-learn's
    # multi-class calls apply as they are
    rng = np.random.default_rng(seed)
    classes = ["owl", "it's", "Bee", "ant"]
    counts = rng.integers(0, 4, size=(600, 4)) + np.eye(4, dtype=int)[rng.integers(0, 4, 600)]
    scores = counts / counts.sum(axis=1, keepdims=True)
    frame = pl.DataFrame(
        {
            "id": np.arange(600),
            "slice": rng.choice(["x", "y", "z"], 600),
            "label": rng.choice(classes, 600),
            "weight": rng.choice([0.0, 0.5, 1.0, 2.5], 600),
        }
    ).with_columns(**{ovr_score_column(c): pl.Series(scores[:, j]) for j, c in enumerate(classes)})
    for weight in ("weight", None):
        for class_scores in shapes(frame, classes).values():
            result = evaluate(frame, class_scores, weight=weight, by="slice", engine=engine)
            for row in result.iter_rows(named=True):
                part = frame.filter(pl.col("slice") == row["slice"])
                y, w = part["label"].to_numpy(), part["weight"].to_numpy() if weight else np.ones(part.height)
                p = part.select(ovr_score_column(c) for c in classes).to_numpy()
                for call in CALLS:
                    expected = sklearn_multiclass(call.spec.name, call.kwargs["average"], y, p, w, classes)
                    assert row[call.column] == pytest.approx(expected, rel=1e-9, abs=1e-9), call.column
                    assert (row[f"{call.column}_classes"], row[f"{call.column}_skipped"]) == (4, 0)


@examples(20, AGREEMENT)
@given(data=class_score_rows())
def test_parquet_sources_give_the_same_numbers(data, tmp_path_factory):
    frame, classes = data
    folder = tmp_path_factory.mktemp("pq")
    frame.write_parquet(folder / "rows.parquet")
    long_table(frame, classes).write_parquet(folder / "scores.parquet")
    long = sm.long_scores(str(folder / "scores.parquet"), row_id="id")
    weight = "weight" if is_weighted(frame) else None
    expected = evaluate(frame, wide(classes), weight=weight, by="slice")
    for engine in ("duckdb", "polars"):
        for class_scores in (wide(classes), long):
            result = evaluate(folder / "rows.parquet", class_scores, weight=weight, by="slice", engine=engine)
            assert_same(result, expected)


# --- invariants -------------------------------------------------------------------------


@examples(20, AGREEMENT)
@given(data=class_score_rows(), seed=st.integers(0, 2**32 - 1), engine=st.sampled_from(["duckdb", "polars"]))
def test_row_order_does_not_matter(data, seed, engine):
    frame, classes = data
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=seed)
    for name, class_scores in shapes(frame, classes).items():
        shuffled_scores = shapes(shuffled, classes, long_table(shuffled, classes).reverse())[name]
        assert_same(
            evaluate(frame, class_scores, weight="weight", by="slice", engine=engine),
            evaluate(shuffled, shuffled_scores, weight="weight", by="slice", engine=engine),
        )


@examples(20, AGREEMENT)
@given(data=class_score_rows(), engine=st.sampled_from(["duckdb", "polars"]))
def test_weights_of_one_are_no_weights(data, engine):
    frame, classes = data
    ones = frame.with_columns(weight=pl.lit(1.0))
    assert_same(
        evaluate(ones, wide(classes), by="slice", engine=engine),
        evaluate(ones, wide(classes), weight="weight", by="slice", engine=engine),
    )


@examples(20, AGREEMENT)
@given(data=class_score_rows(), repeats=st.lists(st.integers(1, 3), min_size=40, max_size=40))
def test_integer_weight_equals_repeated_rows(data, repeats):
    frame, classes = data
    frame = frame.drop_nulls()
    weighted = frame.with_columns(weight=pl.Series(repeats[: frame.height], dtype=pl.Float64))
    repeated = weighted.select(pl.all().repeat_by(pl.col("weight").cast(pl.Int64)).explode()).drop("weight")
    metrics = pl.exclude("n_rows", "n_excluded")  # these count rows, not weight
    assert_same(
        evaluate(weighted, wide(classes), weight="weight", by="slice").select(metrics),
        evaluate(repeated, wide(classes), by="slice").select(metrics),
    )


@examples(15, AGREEMENT)
@given(data=class_score_rows(), engine=st.sampled_from(["duckdb", "polars"]))
def test_composition_does_not_change_numbers(data, engine):
    # with the prediction bound too, "accuracy" and "f1" are the multi-class metrics
    frame, classes = data
    others = ["accuracy", "f1", "cohen_kappa"]
    for class_scores in shapes(frame, classes).values():
        kwargs = {"weight": "weight", "by": "slice", "prediction": "prediction", "engine": engine}
        composed = evaluate(frame, class_scores, [*CALLS, *others], **kwargs)
        for metric in [*CALLS, *others]:
            alone = evaluate(frame, class_scores, [metric], **kwargs)
            assert_same(alone, composed.select(alone.columns))
        # the one-vs-rest metrics alone, without the prediction
        alone = evaluate(frame, class_scores, CALLS, weight="weight", by="slice", engine=engine)
        assert_same(alone, composed.select(alone.columns).with_columns(n_excluded=alone["n_excluded"]))


@examples(15, AGREEMENT)
@given(data=class_score_rows(kind="int", n_classes=2), engine=st.sampled_from(["duckdb", "polars"]))
def test_composition_with_binary_metrics_does_not_change_numbers(data, engine):
    # classes 0 and 1 are binary labels too: the binary metrics read class 1's score
    frame, classes = data
    binary = ["logloss", "brier", sm.auc(), sm.precision(threshold=0.3)]
    for class_scores in shapes(frame, classes).values():
        kwargs = {"weight": "weight", "by": "slice", "score": ovr_score_column(1), "engine": engine}
        composed = evaluate(frame, class_scores, [*CALLS[1:], *binary], **kwargs)
        for metric in [*CALLS[1:], *binary]:
            alone = evaluate(frame, class_scores, [metric], **kwargs)
            assert_same(alone, composed.select(alone.columns))


@examples(15, AGREEMENT)
@given(data=class_score_rows(), engine=st.sampled_from(["duckdb", "polars"]))
def test_slicing_equals_filtering(data, engine):
    frame, classes = data
    sliced = evaluate(frame, wide(classes), weight="weight", by="slice", engine=engine)
    for row in sliced.iter_rows(named=True):
        part = frame.filter(pl.col("slice").eq_missing(row["slice"]))
        alone = evaluate(part, wide(classes), weight="weight", engine=engine)
        assert_same(alone, sliced.filter(pl.col("slice").eq_missing(row["slice"])).drop("slice"))


@examples(20, AGREEMENT)
@given(data=class_score_rows())
def test_public_frame_functions_equal_evaluate(data):
    """``smp.multiclass_auc(frame, ...)`` gives evaluate's numbers per slice, in both shapes."""
    frame, classes = data
    evaluated = evaluate(frame, wide(classes), weight="weight", by="slice")
    for class_scores in shapes(frame, classes).values():
        for call in CALLS:
            function = getattr(smp, call.spec.name)
            computed = function(
                frame, label="label", class_scores=class_scores, weight="weight", by=["slice"], **call.kwargs
            )
            assert computed.columns == ["slice", *call.columns]  # named as evaluate names them
            # slices whose rows are all excluded have no class rows, hence no row in the frame function
            joined = evaluated.select("slice").join(computed, on="slice", how="left", nulls_equal=True)
            expected = evaluated.select("slice", *call.columns)
            assert_same(joined.with_columns(pl.col(call.columns[1:]).fill_null(0)), expected)


def test_perfect_scores_give_one_and_result_types(engine):
    frame = pl.DataFrame({"label": ["a", "b", "c", "a"], "w": [1.0, 0.5, 2.0, 0.0]})
    frame = frame.with_columns(**{f"p_{c}": (pl.col("label") == c).cast(pl.Float64) for c in "abc"})
    result = evaluate(frame, {c: f"p_{c}" for c in "abc"}, weight="w", engine=engine)
    assert result.select(call.column for call in CALLS).row(0) == (1.0,) * 4
    schema = result.schema
    counts = [c for c in schema if c.endswith(("_classes", "_skipped")) or c.startswith("n_")]
    assert all(schema[c] == pl.Int64 for c in counts) and len(counts) == 10
    assert all(schema[call.column] == pl.Float64 for call in CALLS)


# --- hand-worked values, degenerate classes, NULLs ------------------------------------------

# Five rows, three classes (scores a, b, c): 1 a (.6 .2 .2), 2 b (.3 .4 .3), 3 c (.2 .4 .4),
# 4 a (.3 .2 .5), 5 b (.1 .5 .4). Per class, positives against negatives:
#   AUC  a: .6 beats .3 .2 .1, .3 ties .3 and beats .2 .1: 5.5 / 6; b: .4 ties .4 and beats
#        .2 .2, .5 beats all three: 5.5 / 6; c: .4 beats .2 .3, ties .4, loses to .5: 2.5 / 4
#   AP   a: .6 (precision 1), then .3 with a negative (2/3): (1 + 2/3) / 2 = 5/6;
#        b: .5 (1), then .4 with a negative (2/3): 5/6; c: .5 negative, .4 with a negative (1/3): 1/3
# macro: AUC (11/12 + 11/12 + 5/8) / 3, AP (5/6 + 5/6 + 1/3) / 3 = 2/3;
# weighted by supports 2, 2, 1: AUC (4·11/12 + 5/8) / 5, AP (4·5/6 + 1/3) / 5 = 11/15
HAND = pl.DataFrame(
    {
        "id": [1, 2, 3, 4, 5],
        "y": ["a", "b", "c", "a", "b"],
        "p_a": [0.6, 0.3, 0.2, 0.3, 0.1],
        "p_b": [0.2, 0.4, 0.4, 0.2, 0.5],
        "p_c": [0.2, 0.3, 0.4, 0.5, 0.4],
    }
)
HAND_SCORES = {"a": "p_a", "b": "p_b", "c": "p_c"}
HAND_LONG = HAND.unpivot(index="id", on=["p_a", "p_b", "p_c"], variable_name="cls", value_name="p").with_columns(
    pl.col("cls").str.strip_prefix("p_")
)
HAND_SHAPES = {"wide": HAND_SCORES, "long": sm.long_scores(HAND_LONG, row_id="id", class_="cls", score="p")}


@pytest.mark.parametrize("shape", HAND_SHAPES)
def test_hand_worked_example(shape, engine):
    result = sm.evaluate(HAND, CALLS, label="y", class_scores=HAND_SHAPES[shape], engine=engine)
    expected = {
        "auc": (11 / 12 + 11 / 12 + 5 / 8) / 3,
        "average_precision": 2 / 3,
        "auc_weighted": (4 * 11 / 12 + 5 / 8) / 5,
        "average_precision_weighted": 11 / 15,
    }
    for label, value in expected.items():
        assert result[label].item() == pytest.approx(value, abs=1e-15), label
        assert (result[f"{label}_classes"].item(), result[f"{label}_skipped"].item()) == (3, 0)
    assert (result["n_rows"].item(), result["n_excluded"].item()) == (5, 0)


def test_a_class_without_positives_is_skipped_and_counted(engine):
    # slice "x" has no row of class c: c's AUC is undefined (scikit-learn raises) and the
    # mean is over a and b; slice "y" holds only class a: nothing to average, NULL
    frame = HAND.with_columns(s=pl.Series(["x", "x", "y", "x", "x"]), y=pl.Series(["a", "b", "a", "a", "b"]))
    result = sm.evaluate(frame, CALLS, label="y", class_scores=HAND_SCORES, by="s", engine=engine)
    x = frame.filter(pl.col("s") == "x")
    y, auc_a = x["y"].to_numpy(), skm.roc_auc_score(x["y"] == "a", x["p_a"])
    auc_b = skm.roc_auc_score(x["y"] == "b", x["p_b"])
    assert result["auc"][0] == pytest.approx((auc_a + auc_b) / 2, abs=1e-15)
    assert (result["auc_classes"][0], result["auc_skipped"][0]) == (2, 1)
    # scikit-learn gives the class without positives AP 0 (with a warning); sqlmetrics leaves it out
    with pytest.warns(UserWarning, match="No positive class found in y_true"):
        ap = skm.average_precision_score(label_binarize(y, classes=["a", "b", "c"]), x.select(HAND_SCORES.values()))
    assert result["average_precision"][0] == pytest.approx(ap * 3 / 2, abs=1e-15)
    assert result.row(1) == (*("y", 1, 0), *(None, 0, 3) * 4)


def test_weights_of_zero_make_a_class_degenerate(engine):
    # class c's only row weighs 0: no positive weight, so c is skipped as if absent
    weights = pl.Series("w", [1.0, 1.0, 0.0, 1.0, 1.0])
    weighted = sm.evaluate(
        HAND.with_columns(weights), CALLS, label="y", class_scores=HAND_SCORES, weight="w", engine=engine
    )
    assert (weighted["auc_classes"].item(), weighted["auc_skipped"].item()) == (2, 1)
    rows = HAND.with_columns(weights).filter(pl.col("w") > 0)
    for call in CALLS:
        name = call.spec.name
        expected, _, _ = expected_row(
            call, rows["y"].to_numpy(), rows.select(HAND_SCORES.values()).to_numpy(), np.ones(4), list(HAND_SCORES)
        )
        assert weighted[call.column].item() == pytest.approx(expected, abs=1e-15), name


def test_empty_source_and_null_rows(engine):
    empty = HAND.clear()
    result = sm.evaluate(empty, CALLS, label="y", class_scores=HAND_SCORES, engine=engine)
    assert result.row(0) == (0, 0, *(None, 0, 0) * 4)
    # a NULL label, a NULL score (wide) and a NULL score in the long table exclude their rows
    nulls = HAND.with_columns(y=pl.Series(["a", None, "c", "a", "b"]), p_c=pl.Series([0.2, 0.3, 0.4, None, 0.4]))
    long = HAND_LONG.with_columns(
        p=pl.when((pl.col("id") == 4) & (pl.col("cls") == "c")).then(None).otherwise(pl.col("p"))
    )
    both = {"wide": HAND_SCORES, "long": sm.long_scores(long, row_id="id", class_="cls", score="p")}
    kept = HAND.filter(pl.col("id").is_in([1, 3, 5]))
    expected = sm.evaluate(kept, CALLS, label="y", class_scores=HAND_SCORES, engine=engine)
    for shape, class_scores in both.items():
        source = nulls if shape == "wide" else nulls.with_columns(p_c=HAND["p_c"])
        result = sm.evaluate(source, CALLS, label="y", class_scores=class_scores, engine=engine)
        assert (result["n_rows"].item(), result["n_excluded"].item()) == (3, 2), shape
        assert_same(result.drop("n_excluded"), expected.drop("n_excluded"))


# --- names, routing, SQL ---------------------------------------------------------------------


def test_plain_names_mean_the_one_vs_rest_metrics_when_class_scores_are_bound(engine):
    frame = HAND.with_columns(click=pl.Series([1, 0, 0, 1, 0]))
    routed = sm.evaluate(frame, ["auc", "average_precision"], label="y", class_scores=HAND_SCORES, engine=engine)
    explicit = sm.evaluate(
        frame,
        [sm.multiclass_auc(), sm.multiclass_average_precision()],
        label="y",
        class_scores=HAND_SCORES,
        engine=engine,
    )
    assert routed.columns == explicit.columns == [
        "n_rows", "n_excluded", "auc", "auc_classes", "auc_skipped",
        "average_precision", "average_precision_classes", "average_precision_skipped",
    ]  # fmt: skip
    assert_same(routed, explicit)
    # without class scores "auc" is the binary metric of a score; with both, a call is taken as given
    binary = sm.evaluate(frame, ["auc"], label="click", score="p_a", engine=engine)
    assert binary.columns == ["n_rows", "n_excluded", "auc"]
    with pytest.raises(sm.InvalidParameterError, match=r"multiclass_auc\(average='macro'\) and auc\(\) both produce"):
        sm.evaluate(frame, ["auc", sm.auc()], label="y", score="p_a", class_scores=HAND_SCORES, engine=engine)


def test_sql_binds_classes_as_literals_and_columns_as_quoted_names():
    class_scores = {"it's": 'p "it\'s"', "owl": "p owl"}
    sql = sm.to_sql(["auc"], source="preds.parquet", label="y", class_scores=class_scores)
    assert "(VALUES (1, 'it''s'), (2, 'owl')) AS c(i, class)" in sql  # one pass over input for every class
    assert 'CAST("p ""it\'s""" AS DOUBLE) AS class_score_1' in sql and 'CAST("p owl" AS DOUBLE)' in sql
    assert sql.count("read_parquet") == 1
    long = sm.to_sql(
        ["auc"], source="preds.parquet", label="y", class_scores=sm.long_scores("scores.parquet", row_id="id")
    )
    assert (
        "read_parquet('scores.parquet', can_have_nan = true)" in long
        and 'SELECT "id" AS row_id, "class" AS class' in long
    )


def test_hostile_class_and_column_names_work(engine):
    frame = HAND.rename({"p_a": "p 'a'", "p_b": 'p "b"'}).with_columns(pl.col("y").replace({"a": "a'); DROP"}))
    class_scores = {"a'); DROP": "p 'a'", "b": 'p "b"', "c": "p_c"}
    result = sm.evaluate(frame, CALLS, label="y", class_scores=class_scores, engine=engine)
    assert_same(result, sm.evaluate(HAND, CALLS, label="y", class_scores=HAND_SCORES, engine=engine))


def test_integer_and_boolean_classes(engine):
    ints = HAND.with_columns(pl.col("y").replace_strict({"a": 0, "b": 1, "c": 2}))
    result = sm.evaluate(ints, CALLS, label="y", class_scores={0: "p_a", 1: "p_b", 2: "p_c"}, engine=engine)
    assert_same(result, sm.evaluate(HAND, CALLS, label="y", class_scores=HAND_SCORES, engine=engine))
    # booleans are classes too (two classes: both one-vs-rest problems are the binary one, mirrored)
    flags = pl.DataFrame({"y": [True, False, True, False], "p_true": [0.9, 0.2, 0.4, 0.6]})
    flags = flags.with_columns(p_false=1 - pl.col("p_true"))
    result = sm.evaluate(flags, ["auc"], label="y", class_scores={True: "p_true", False: "p_false"}, engine=engine)
    assert result["auc"].item() == pytest.approx(skm.roc_auc_score(flags["y"], flags["p_true"]), abs=1e-15)


# --- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", HAND_SHAPES)
def test_a_label_class_without_scores_is_an_error_naming_it(shape, engine):
    frame = HAND.with_columns(y=pl.Series(["a", "b", "c", "dog", "dog"]))
    message = r"label column 'y' must hold one of the classes of class_scores: 2 rows do not, e.g. dog"
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.evaluate(frame, ["auc"], label="y", class_scores=HAND_SHAPES[shape], engine=engine)


def test_a_missing_score_column_is_named_with_the_columns_that_exist(engine):
    message = r"class 'c' score column 'p_x' not found; the source has: id, y, p_a, p_b, p_c"
    with pytest.raises(sm.ColumnNotFoundError, match=message):
        sm.evaluate(HAND, ["auc"], label="y", class_scores={**HAND_SCORES, "c": "p_x"}, engine=engine)
    text = HAND.with_columns(p_b=pl.col("p_b").cast(pl.String))
    with pytest.raises(sm.SqlMetricsError, match=r"class 'b' score column 'p_b' has type (VARCHAR|String); expected a"):
        sm.evaluate(text, ["auc"], label="y", class_scores=HAND_SCORES, engine=engine)


def test_missing_long_columns_are_named(engine):
    scores = sm.long_scores(HAND_LONG, row_id="id", class_="cls", score="prob")
    with pytest.raises(
        sm.ColumnNotFoundError, match=r"class_scores score column 'prob' not found; the class scores have: id, cls, p"
    ):
        sm.evaluate(HAND, ["auc"], label="y", class_scores=scores, engine=engine)
    scores = sm.long_scores(HAND_LONG.rename({"id": "row"}), row_id="row", class_="cls", score="p")
    with pytest.raises(sm.ColumnNotFoundError, match=r"row_id column 'row' not found; the source has: id, y"):
        sm.evaluate(HAND, ["auc"], label="y", class_scores=scores, engine=engine)


@pytest.mark.parametrize("shape", HAND_SHAPES)
def test_a_nan_score_is_an_error_naming_the_column(shape, engine):
    nan = float("nan")
    frame = HAND.with_columns(p_b=pl.Series([0.2, nan, 0.4, nan, 0.5]))
    long = HAND_LONG.with_columns(
        p=pl.when((pl.col("cls") == "b") & pl.col("id").is_in([2, 4])).then(nan).otherwise("p")
    )
    if shape == "wide":
        message, class_scores = r"class score column 'p_b' \(class 'b'\) must not be NaN: 2 rows are not$", HAND_SCORES
    else:
        message = r"class_scores score column 'p' must not be NaN: 2 rows are not, e.g. class b$"
        class_scores = sm.long_scores(long, row_id="id", class_="cls", score="p")
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.evaluate(frame, ["auc"], label="y", class_scores=class_scores, engine=engine)


def long_error(long: pl.DataFrame, engine: str, source: pl.DataFrame = HAND) -> str:
    with pytest.raises(sm.InvalidInputError) as error:
        sm.evaluate(
            source,
            ["auc"],
            label="y",
            class_scores=sm.long_scores(long, row_id="id", class_="cls", score="p"),
            engine=engine,
        )
    return str(error.value)


def test_long_score_integrity(engine):
    repeated = pl.concat([HAND_LONG, HAND_LONG.filter((pl.col("id") == 2) & (pl.col("cls") == "b"))])
    assert long_error(repeated, engine) == (
        "class_scores must score each (row id, class) once: 1 pair has more than one row, e.g. row id, class = 2, b"
    )
    no_row = HAND_LONG.filter(pl.col("id") != 5)
    assert long_error(no_row, engine) == (
        "class_scores must score every class for every source row (by 'id'): "
        "1 row of the source is not, e.g. row id 5"
    )
    no_class = HAND_LONG.filter((pl.col("id") != 3) | (pl.col("cls") != "a"))
    assert long_error(no_class, engine).endswith("1 row of the source is not, e.g. row id 3")
    null_class = HAND_LONG.with_columns(cls=pl.when(pl.col("id") == 4).then(None).otherwise("cls"))
    assert long_error(null_class, engine) == (
        "class_scores must have a row id and a class in every row: 3 rows do not, e.g. row id, class = 4, NULL"
    )
    # a source row whose row id is NULL is excluded, like any NULL in a bound column; score rows of
    # ids the source lacks are ignored
    source = HAND.with_columns(id=pl.Series([1, 2, 3, 4, None]))
    extra = pl.concat([HAND_LONG, HAND_LONG.filter(pl.col("id") == 1).with_columns(id=pl.lit(99, pl.Int64))])
    result = sm.evaluate(
        source,
        ["auc"],
        label="y",
        class_scores=sm.long_scores(extra, row_id="id", class_="cls", score="p"),
        engine=engine,
    )
    expected = sm.evaluate(HAND.head(4), ["auc"], label="y", class_scores=HAND_SCORES, engine=engine)
    assert (result["n_rows"].item(), result["n_excluded"].item()) == (4, 1)
    assert_same(result.drop("n_excluded"), expected.drop("n_excluded"))


def test_classes_must_compare_with_the_label(engine):
    with pytest.raises(
        sm.SqlMetricsError,
        match=r"label column 'y' \((VARCHAR|String)\) cannot be compared with the classes of class_scores \(0, 1, 2\)",
    ):
        sm.evaluate(HAND, ["auc"], label="y", class_scores={0: "p_a", 1: "p_b", 2: "p_c"}, engine=engine)
    numbered = HAND_LONG.with_columns(cls=pl.col("cls").replace_strict({"a": 0, "b": 1, "c": 2}))
    message = (
        r"label column 'y' \((VARCHAR|String)\) and class_scores class column 'cls' \((BIGINT|Int64)\) "
        "cannot be compared"
    )
    with pytest.raises(sm.SqlMetricsError, match=message):
        sm.evaluate(
            HAND,
            ["auc"],
            label="y",
            class_scores=sm.long_scores(numbered, row_id="id", class_="cls", score="p"),
            engine=engine,
        )


@pytest.mark.parametrize(
    ("class_scores", "message"),
    [
        ({"a": "p_a"}, r"one-vs-rest needs at least two classes, got 1"),
        ({"a": "p_a", 1: "p_b"}, r"classes must be all strings or all numbers \(or booleans\), got \['a', 1\]"),
        ({"a": "p_a", "b": 2}, r"the score column of class 'b' must be a name, got 2"),
        ({"a": "p_a", None: "p_b"}, r"a class must be a string, a number or a boolean, got None"),
        (["p_a", "p_b"], r"class_scores must be a mapping \{class: score column\} or sm.long_scores"),
    ],
)
def test_bad_class_score_mappings(class_scores, message):
    with pytest.raises(sm.InvalidParameterError, match=message):
        sm.evaluate(HAND, ["auc"], label="y", class_scores=class_scores)


def test_one_vs_rest_metrics_need_class_scores():
    with pytest.raises(
        sm.InvalidParameterError,
        match=r"multiclass_auc: a one-vs-rest metric reads one score per class: pass class_scores=",
    ):
        sm.evaluate(HAND, [sm.multiclass_auc()], label="y")
    with pytest.raises(sm.InvalidParameterError, match=r"judgments and class_scores cannot be combined"):
        sm.evaluate(HAND, ["ndcg"], label="y", query="id", item="id", judgments=HAND, class_scores=HAND_SCORES)
    with pytest.raises(sm.InvalidParameterError, match=r"long_scores: row_id must be a column name"):
        sm.long_scores(HAND_LONG, row_id=None)


def test_negative_weight_is_an_error(engine):
    frame = HAND.with_columns(w=pl.Series([1.0, -1.0, 1.0, 1.0, 1.0]))
    with pytest.raises(sm.InvalidInputError, match=r"weight column 'w' must be finite and >= 0: 1 row is not"):
        sm.evaluate(frame, ["auc"], label="y", class_scores=HAND_SCORES, weight="w", engine=engine)


def test_row_ids_must_join(engine):
    # the source's ids are numbers, the table's strings: DuckDB would cast, polars refuses
    text_ids = HAND_LONG.with_columns(pl.col("id").cast(pl.String))
    message = r"row id column 'id' \((BIGINT|Int64)\) and class_scores row id column 'id' \((VARCHAR|String)\) cannot"
    with pytest.raises(sm.SqlMetricsError, match=message):
        sm.evaluate(
            HAND,
            ["auc"],
            label="y",
            class_scores=sm.long_scores(text_ids, row_id="id", class_="cls", score="p"),
            engine=engine,
        )
    dates = HAND.with_columns(y=pl.date(2024, 1, pl.col("id")))
    with pytest.raises(sm.SqlMetricsError, match=r"label column 'y' has type (DATE|Date); a class must be a number"):
        sm.evaluate(dates, ["auc"], label="y", class_scores=HAND_SHAPES["long"], engine=engine)


def test_long_scores_example_runs():
    result = doctest.testmod(class_scores_module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# --- the command line: --class-scores, --long-scores ----------------------------------


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    """A source with wide class scores and the same scores as a long table, as Parquet."""
    rng = np.random.default_rng(11)
    classes = [0, 1, 2]
    rows = 60
    scores = rng.dirichlet([1.0, 1.0, 1.0], size=rows).round(2)  # rounded: ties
    source = pl.DataFrame(
        {
            "id": range(rows),
            "y": rng.choice(classes, size=rows),
            "w": rng.uniform(0.5, 2.0, size=rows),
            **{f"p{c}": scores[:, c] for c in classes},
        }
    )
    long = source.unpivot(index="id", on=[f"p{c}" for c in classes], variable_name="c", value_name="s")
    long = long.with_columns(pl.col("c").str.slice(1).cast(pl.Int64))
    folder = tmp_path_factory.mktemp("ovr_cli")
    source.write_parquet(folder / "source.parquet")
    long.write_parquet(folder / "long.parquet")
    return folder


def test_command_line_wide_and_long_class_scores_are_the_api_numbers(cli_files, capsys):
    from sqlmetrics import cli

    source = cli_files / "source.parquet"
    specs = ["-m", "auc,average_precision:average=weighted", "--label", "y", "--weight", "w", "--format", "csv"]
    wide = ["--class-scores", "0=p0,1=p1,2=p2"]
    long = ["--long-scores", cli_files / "long.parquet", "--row-id", "id", "--long-class", "c", "--long-score", "s"]
    expected = sm.evaluate(
        source,
        ["auc", sm.multiclass_average_precision(average="weighted")],
        label="y",
        weight="w",
        class_scores={0: "p0", 1: "p1", 2: "p2"},
    )
    for shape in (wide, long):
        for engine in ("duckdb", "polars"):
            assert cli.main(["eval", str(source), *specs, *map(str, shape), "--engine", engine]) == 0
            got = pl.read_csv(capsys.readouterr().out.encode())
            polars.testing.assert_frame_equal(got, expected, check_dtypes=False, abs_tol=1e-12)


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        (["--class-scores", "0=p0,1"], "expected CLASS=COLUMN"),
        (["--long-scores", "long.parquet"], "--long-scores needs --row-id"),
        (["--row-id", "id"], "pass --long-scores PATH"),
        (["--class-scores", "0=p0,1=p1", "--long-scores", "x.parquet", "--row-id", "id"], "not both"),
    ],
)
def test_command_line_class_score_usage_errors(cli_files, capsys, options, fragment):
    from sqlmetrics import cli

    code = cli.main(["eval", str(cli_files / "source.parquet"), "-m", "auc", "--label", "y", *options])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("sqlmetrics: error: ") and fragment in err
