"""One-vs-rest multi-class AUC and average precision against scikit-learn
(``roc_auc_score(multi_class="ovr")`` and ``average_precision_score`` on
``label_binarize``), macro and weighted, with and without weights, tied scores, NULLs,
slices and degenerate classes, through both engines, both shapes of class scores (wide
columns, a long table) and Parquet files; composition; routing; bad input."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import polars.testing
from hypothesis import given, settings
from sklearn import metrics as skm
from sklearn.preprocessing import label_binarize

import sqlmetrics as sm
from sqlmetrics.registry import resolve

from strategies import class_score_rows, ovr_score_column

ONE_VS_REST = [name for name, spec in sm.registry().items() if "class_scores" in spec.needs]
# The plain names (routed with class scores bound) and every average.
CALLS = resolve(
    [
        "auc",
        "average_precision",
        sm.multiclass_auc(average="weighted"),
        sm.multiclass_average_precision(average="weighted"),
    ],
    class_scores=True,
)


def test_every_one_vs_rest_metric_is_checked():
    assert {call.spec.name for call in CALLS} == set(ONE_VS_REST)
    assert [call.label for call in CALLS] == ["auc", "average_precision", "auc_weighted", "average_precision_weighted"]


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


def per_class_reference(name: str, y: np.ndarray, scores: np.ndarray, w: np.ndarray, classes: list):
    """Each class's binary value (scikit-learn) and true weight, None for a degenerate class."""
    values = []
    for j, cls in enumerate(classes):
        positive = y == cls
        support, rest = w[positive].sum(), w[~positive].sum()
        if support == 0 or rest == 0:
            values.append((None, support))
            continue
        binary = skm.roc_auc_score if name == "multiclass_auc" else skm.average_precision_score
        values.append((binary(positive, scores[:, j], sample_weight=w), support))
    return values


def sklearn_multiclass(name: str, average: str, y: np.ndarray, scores: np.ndarray, w: np.ndarray, classes: list):
    """scikit-learn's own multi-class call; its classes must be sorted."""
    order = sorted(range(len(classes)), key=lambda j: classes[j])
    ordered, sorted_scores = [classes[j] for j in order], scores[:, order]
    if name == "multiclass_auc":
        return skm.roc_auc_score(y, sorted_scores, multi_class="ovr", average=average, sample_weight=w, labels=ordered)
    return skm.average_precision_score(
        label_binarize(y, classes=ordered), sorted_scores, average=average, sample_weight=w
    )


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
            label = call.label
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


@settings(max_examples=20)
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
