"""Curves against scikit-learn (and numpy where scikit-learn takes no weight), through both
engines, sliced, weighted, with heavy ties, NULLs and one-class slices; the engines
agree; row order and slicing change nothing; thinning keeps its proven area bound; bad
input is an error naming what is wrong."""

from __future__ import annotations

import doctest
import math
import warnings

import duckdb
import numpy as np
import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve
from sklearn.metrics import precision_recall_curve, roc_curve

import sqlmetrics as sm
from sqlmetrics import curves
from sqlmetrics.curves import _thin

from strategies import AGREEMENT, TIED_SCORES, examples, impressions

ENGINES = st.sampled_from(["duckdb", "polars"])
INF = float("inf")


# --- references ---------------------------------------------------------------------


def used_rows(frame: pl.DataFrame, weighted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The rows a curve uses (no NULL in a bound column): labels, scores, weights or None."""
    used = frame.drop_nulls(["label", "score", *(["weight"] if weighted else [])])
    weights = used["weight"].to_numpy() if weighted else None
    return used["label"].to_numpy(), used["score"].to_numpy(), weights


def has_weight(w: np.ndarray | None, n: int) -> bool:
    return n > 0 and (w is None or w.sum() > 0)


def nan_to_none(values) -> list:
    return [None if math.isnan(v) else float(v) for v in values]


def sklearn_roc(y, s, w, drop_intermediate: bool) -> list[tuple]:
    """scikit-learn's points as rows (threshold, fpr, tpr); its nan is NULL."""
    if not has_weight(w, len(y)):
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one-class slices: nan and a warning
        fpr, tpr, thresholds = roc_curve(y, s, sample_weight=w, drop_intermediate=drop_intermediate)
    return list(zip(thresholds.tolist(), nan_to_none(fpr), nan_to_none(tpr)))


def sklearn_pr(y, s, w, drop_intermediate: bool) -> list[tuple]:
    """scikit-learn's points as rows (threshold, precision, recall), threshold descending,
    its final thresholdless (1, 0) point first at threshold +inf; recall NULL without
    positives (scikit-learn sets it to 1)."""
    if not has_weight(w, len(y)):
        return []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        precision, recall, thresholds = precision_recall_curve(
            y, s, sample_weight=w, drop_intermediate=drop_intermediate
        )
    positives = (y * (np.ones(len(y)) if w is None else w)).sum() > 0
    rows = list(zip([*thresholds.tolist(), INF], precision.tolist(), recall.tolist()))[::-1]
    return [(t, p, r if positives else None) for t, p, r in rows]


def numpy_edges(s: np.ndarray, bins: int, strategy: str) -> np.ndarray:
    """scikit-learn's bin edges, as calibration_curve computes them."""
    if strategy == "quantile":
        return np.percentile(s, np.linspace(0, 1, bins + 1) * 100)
    return np.linspace(0.0, 1.0, bins + 1)


def calibration_reference(y, s, w, bins: int, strategy: str) -> list[tuple]:
    """Rows (bin, mean_score, observed_rate, count[, weight]) per non-empty bin: scikit-learn's
    calibration_curve unweighted; weighted, the same bins with weighted means (numpy)."""
    if len(y) == 0:
        return []
    binids = np.searchsorted(numpy_edges(s, bins, strategy)[1:-1], s)
    counts = np.bincount(binids, minlength=bins)
    nonempty = np.flatnonzero(counts)
    if w is None:
        prob_true, prob_pred = calibration_curve(y, s, n_bins=bins, strategy=strategy)
        return list(zip(nonempty.tolist(), prob_pred.tolist(), prob_true.tolist(), counts[nonempty].tolist()))
    rows = []
    for b in nonempty:
        inside = binids == b
        total = w[inside].sum()
        mean_score = (w[inside] * s[inside]).sum() / total if total > 0 else None
        observed = (w[inside] * y[inside]).sum() / total if total > 0 else None
        rows.append((int(b), mean_score, observed, int(counts[b]), float(total)))
    return rows


def expected_rows(frame: pl.DataFrame, weighted: bool, reference, **params) -> list[tuple]:
    """The reference's rows of every slice, slices sorted with NULL last."""
    rows = []
    for value in sorted(set(frame["slice"].to_list()), key=lambda v: (v is None, v)):
        y, s, w = used_rows(frame.filter(pl.col("slice").eq_missing(value)), weighted)
        rows += [(value, *row) for row in reference(y, s, w, **params)]
    return rows


def assert_rows_close(actual: list[tuple], expected: list[tuple]) -> None:
    assert len(actual) == len(expected), f"{len(actual)} rows, expected {len(expected)}:\n{actual}\n{expected}"
    for got, want in zip(actual, expected):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            if b is None or isinstance(b, str) or (isinstance(b, float) and math.isinf(b)):
                assert a == b, f"{got} != {want}"
            else:
                assert a is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9), f"{got} != {want}"


def is_weighted(frame: pl.DataFrame) -> bool:
    return frame["weight"].null_count() > 0 or bool((frame["weight"] != 1).any())


# --- scikit-learn ---------------------------------------------------------------------


@given(frame=impressions(), engine=ENGINES, drop_intermediate=st.booleans())
def test_roc_curve_is_sklearns(frame, engine, drop_intermediate):
    weighted = is_weighted(frame)
    result = sm.roc_curve(
        frame, weight="weight" if weighted else None, by="slice", drop_intermediate=drop_intermediate, engine=engine
    )
    assert result.columns == ["slice", "threshold", "fpr", "tpr"]
    assert_rows_close(result.rows(), expected_rows(frame, weighted, sklearn_roc, drop_intermediate=drop_intermediate))


@given(frame=impressions(), engine=ENGINES, drop_intermediate=st.booleans())
def test_pr_curve_is_sklearns(frame, engine, drop_intermediate):
    weighted = is_weighted(frame)
    result = sm.pr_curve(
        frame, weight="weight" if weighted else None, by="slice", drop_intermediate=drop_intermediate, engine=engine
    )
    assert result.columns == ["slice", "threshold", "precision", "recall"]
    assert_rows_close(result.rows(), expected_rows(frame, weighted, sklearn_pr, drop_intermediate=drop_intermediate))


@given(
    frame=impressions(),
    engine=ENGINES,
    bins=st.integers(1, 12),
    strategy=st.sampled_from(["uniform", "quantile"]),
)
def test_calibration_curve_is_sklearns_and_weighted_means_numpys(frame, engine, bins, strategy):
    weighted = is_weighted(frame)
    result = sm.calibration_curve(
        frame, weight="weight" if weighted else None, by="slice", bins=bins, strategy=strategy, engine=engine
    )
    columns = ["slice", "bin", "mean_score", "observed_rate", "count", *(["weight"] if weighted else [])]
    assert result.columns == columns
    expected = expected_rows(frame, weighted, calibration_reference, bins=bins, strategy=strategy)
    assert_rows_close(result.rows(), expected)


@pytest.mark.parametrize("bins", [3, 4, 5, 10])
def test_scores_on_bin_edges_fall_in_the_lower_bin_as_in_numpy(engine, bins):
    edges = np.linspace(0.0, 1.0, bins + 1)
    frame = pl.DataFrame({"score": [*edges.tolist(), 0.05], "label": [0, 1] * (bins // 2 + 1) + [1] * (bins % 2)})
    result = sm.calibration_curve(frame, bins=bins, engine=engine)
    expected = calibration_reference(frame["label"].to_numpy(), frame["score"].to_numpy(), None, bins, "uniform")
    assert_rows_close(result.rows(), expected)
    assert result["bin"][0] == 0 and result["count"][0] == 3  # 0, the first inner edge and 0.05


@pytest.mark.parametrize("bins", [99, 1_000, 100_000])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_many_bins_are_sklearns_with_scores_on_their_edges(engine, bins, strategy):
    # the statement generates its cuts (no literal list of every bin): few rows, many bins,
    # some scores exactly on numpy's edges, 0 and 1
    edges = np.linspace(0.0, 1.0, bins + 1)
    scores = [0.0, edges[1], edges[bins // 3], 0.5, 0.5, edges[-2], 1.0, 0.123456789]
    frame = pl.DataFrame({"score": scores, "label": [0, 1, 1, 0, 1, 0, 1, 1]})
    result = sm.calibration_curve(frame, bins=bins, strategy=strategy, engine=engine)
    expected = calibration_reference(frame["label"].to_numpy(), frame["score"].to_numpy(), None, bins, strategy)
    assert_rows_close(result.rows(), expected)


def test_parquet_source_gives_sklearns_curves(tmp_path, engine):
    rng = np.random.default_rng(3)
    n = 300
    frame = pl.DataFrame(
        {
            "slice": rng.choice(["a", "b"], n),
            "label": rng.integers(0, 2, n),
            "score": rng.choice(TIED_SCORES, n),
            "weight": rng.choice([0.5, 1.0, 2.5], n),
        }
    )
    path = tmp_path / "scores.parquet"
    frame.write_parquet(path)
    roc = sm.roc_curve(path, by="slice", weight="weight", engine=engine)
    assert_rows_close(roc.rows(), expected_rows(frame, True, sklearn_roc, drop_intermediate=False))
    pr = sm.pr_curve(str(path), by="slice", engine=engine, drop_intermediate=True)
    assert_rows_close(pr.rows(), expected_rows(frame, False, sklearn_pr, drop_intermediate=True))
    calibration = sm.calibration_curve(path, by="slice", bins=4, strategy="quantile", engine=engine)
    expected = expected_rows(frame, False, calibration_reference, bins=4, strategy="quantile")
    assert_rows_close(calibration.rows(), expected)


# --- invariants -----------------------------------------------------------------------

CURVES = {
    "roc": (sm.roc_curve, {"drop_intermediate": True}),
    "pr": (sm.pr_curve, {"max_points": 5}),
    "calibration": (sm.calibration_curve, {"bins": 4, "strategy": "quantile"}),
}


def assert_same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    polars.testing.assert_frame_equal(left, right, rel_tol=1e-9, abs_tol=1e-9)


@examples(60, AGREEMENT)
@given(frame=impressions(), kind=st.sampled_from(sorted(CURVES)), max_points=st.none() | st.integers(2, 9))
def test_engines_agree(frame, kind, max_points):
    function, params = CURVES[kind]
    if kind != "calibration":
        params = {**params, "max_points": max_points}
    results = [function(frame, by="slice", weight="weight", engine=engine, **params) for engine in ("duckdb", "polars")]
    assert_same(*results)


@examples(60, AGREEMENT)
@given(frame=impressions(), kind=st.sampled_from(sorted(CURVES)), seed=st.integers(0, 2**16), engine=ENGINES)
def test_row_order_does_not_matter(frame, kind, seed, engine):
    function, params = CURVES[kind]
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=seed)
    assert_same(
        function(frame, by="slice", weight="weight", engine=engine, **params),
        function(shuffled, by="slice", weight="weight", engine=engine, **params),
    )


@examples(60, AGREEMENT)
@given(frame=impressions(), kind=st.sampled_from(sorted(CURVES)), engine=ENGINES)
def test_slicing_equals_each_slice_alone(frame, kind, engine):
    function, params = CURVES[kind]
    sliced = function(frame, by="slice", weight="weight", engine=engine, **params)
    for value in sliced["slice"].unique(maintain_order=True).to_list():
        alone = function(frame.filter(pl.col("slice").eq_missing(value)), weight="weight", engine=engine, **params)
        assert_same(sliced.filter(pl.col("slice").eq_missing(value)).drop("slice"), alone)


def test_weights_of_one_give_the_unweighted_curves(engine):
    frame = pl.DataFrame({"label": [0, 1, 1, 0, 1, 0, 0], "score": [0.2, 0.9, 0.5, 0.5, 0.7, 0.1, 0.9]})
    ones = frame.with_columns(weight=pl.lit(1.0))
    for function, params in CURVES.values():
        weighted = function(ones, weight="weight", engine=engine, **params)
        assert_same(weighted.drop("weight", strict=False), function(frame, engine=engine, **params))


# --- thinning -------------------------------------------------------------------------


@st.composite
def long_curves(draw) -> pl.DataFrame:
    """Up to 300 rows with few or many distinct scores, both classes, weights or not."""
    n = draw(st.integers(2, 300))
    scores = st.sampled_from(TIED_SCORES) if draw(st.booleans()) else st.floats(0.0, 1.0)
    weights = st.sampled_from([0.5, 1.0, 4.0]) if draw(st.booleans()) else st.just(1.0)
    rows = draw(st.lists(st.tuples(st.integers(0, 1), scores, weights), min_size=n, max_size=n))
    rows += [(0, 0.5, 1.0), (1, 0.5, 1.0)]
    return pl.DataFrame(rows, schema={"label": pl.Int64, "score": pl.Float64, "weight": pl.Float64}, orient="row")


def path_length(x: np.ndarray, y: np.ndarray) -> float:
    """The curve's L1 length as the rule measures it: at most one 2⁻³² unit more per step."""
    return float(np.abs(np.diff(x)).sum() + np.abs(np.diff(y)).sum()) + len(x) / _thin.UNITS_PER_LENGTH


def trapezoid_area(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))


def step_area(recall: np.ndarray, precision: np.ndarray) -> float:
    return float(np.sum(np.diff(recall) * precision[1:]))


def assert_thinned_by_the_rule(thinned: pl.DataFrame, exact: pl.DataFrame, axes: tuple[str, str], max_points: int):
    """At most max_points of the exact points, the first and last among them, and the
    rule's lemma: where points were dropped between two kept ones, the path between them
    is at most L/B long."""
    assert thinned.height <= max_points
    assert thinned.row(0) == exact.row(0) and thinned.row(-1) == exact.row(-1)
    position = {threshold: i for i, threshold in enumerate(exact["threshold"])}
    kept = [position[threshold] for threshold in thinned["threshold"]]
    assert thinned.rows() == [exact.row(i) for i in kept]
    x, y = (exact[axis].to_numpy() for axis in axes)
    walked = np.concatenate([[0.0], np.cumsum(np.abs(np.diff(x)) + np.abs(np.diff(y)))])
    bucket = path_length(x, y) / (max_points // 2)
    for a, b in zip(kept, kept[1:]):
        assert b == a + 1 or walked[b] - walked[a] <= bucket + 1e-12, f"points {a}..{b} span more than a bucket"


@given(frame=long_curves(), max_points=st.integers(2, 40), engine=ENGINES)
def test_thinned_roc_area_is_within_its_bound(frame, max_points, engine):
    exact = sm.roc_curve(frame, weight="weight", engine=engine)
    thinned = sm.roc_curve(frame, weight="weight", max_points=max_points, engine=engine)
    assert_thinned_by_the_rule(thinned, exact, ("fpr", "tpr"), max_points)
    x, y = exact["fpr"].to_numpy(), exact["tpr"].to_numpy()
    bound = path_length(x, y) ** 2 / (8 * (max_points // 2))
    error = abs(trapezoid_area(thinned["fpr"].to_numpy(), thinned["tpr"].to_numpy()) - trapezoid_area(x, y))
    assert error <= bound + 1e-12


@given(frame=long_curves(), max_points=st.integers(2, 40), engine=ENGINES)
def test_thinned_pr_step_area_is_within_its_bound(frame, max_points, engine):
    exact = sm.pr_curve(frame, weight="weight", engine=engine)
    thinned = sm.pr_curve(frame, weight="weight", max_points=max_points, engine=engine)
    assert_thinned_by_the_rule(thinned, exact, ("recall", "precision"), max_points)
    recall, precision = exact["recall"].to_numpy(), exact["precision"].to_numpy()
    length, buckets = path_length(recall, precision), max_points // 2
    bound = length / buckets * min(1.0, length / 4)
    error = abs(step_area(thinned["recall"].to_numpy(), thinned["precision"].to_numpy()) - step_area(recall, precision))
    assert error <= bound + 1e-12


def test_without_max_points_every_threshold_has_a_row(engine):
    frame = pl.DataFrame({"label": [0, 1] * 500, "score": [i / 1000 for i in range(1000)]})
    assert sm.roc_curve(frame, engine=engine).height == 1001
    assert sm.roc_curve(frame, max_points=50, engine=engine).height <= 50


# --- degenerate input and errors ------------------------------------------------------

FRAME = pl.DataFrame({"click": [1, 0, 1, 0, 1, 0], "pctr": [0.9, 0.2, 0.6, 0.4, 0.8, 0.1], "day": list("aaabbb")})
ROLES = {"label": "click", "score": "pctr"}
FUNCTIONS = [sm.roc_curve, sm.pr_curve, sm.calibration_curve]


def test_one_class_slice_has_null_rates(engine):
    positives_only = FRAME.filter(pl.col("click") == 1)
    roc = sm.roc_curve(positives_only, **ROLES, engine=engine)
    assert roc["fpr"].null_count() == roc.height and roc["tpr"].to_list() == [0.0, 1 / 3, 2 / 3, 1.0]
    negatives_only = FRAME.filter(pl.col("click") == 0)
    assert sm.roc_curve(negatives_only, **ROLES, engine=engine)["tpr"].null_count() == 4
    pr = sm.pr_curve(negatives_only, **ROLES, engine=engine)
    assert pr["recall"].null_count() == 4 and pr["precision"].to_list() == [1.0, 0.0, 0.0, 0.0]


def test_slice_without_used_rows_has_no_rows(engine):
    frame = FRAME.with_columns(pctr=pl.when(pl.col("day") == "b").then(None).otherwise(pl.col("pctr")))
    for function in FUNCTIONS:
        assert function(frame, **ROLES, by="day", engine=engine)["day"].unique().to_list() == ["a"]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_missing_column_is_named_with_the_columns_that_exist(function, engine):
    with pytest.raises(sm.ColumnNotFoundError, match=r"score column 'p_ctr' not found; the source has: click, pctr"):
        function(FRAME, label="click", score="p_ctr", engine=engine)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_label_outside_0_1_gives_count_and_example(function, engine):
    frame = FRAME.with_columns(click=pl.Series([1, 0, 2, 0, 3, 2]))
    name = function.__name__
    message = rf"label column 'click' must be 0 or 1 \(or boolean\) \(for {name}\): 3 rows are not, e\.g\. 2$"
    with pytest.raises(sm.InvalidInputError, match=message):
        function(frame, **ROLES, engine=engine)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_nan_score_is_an_error(function, engine):
    frame = FRAME.with_columns(pctr=pl.Series([0.9, float("nan"), 0.6, 0.4, float("nan"), 0.1]))
    with pytest.raises(sm.InvalidInputError, match=r"score column 'pctr' must not be NaN: 2 rows are not"):
        function(frame, **ROLES, engine=engine)


def test_calibration_needs_probabilities_roc_and_pr_do_not(engine):
    logits = FRAME.with_columns(pctr=pl.Series([2.2, -1.4, 0.4, -0.4, 1.4, -2.2]))
    assert sm.roc_curve(logits, **ROLES, engine=engine)["tpr"][-1] == 1.0
    assert sm.pr_curve(logits, **ROLES, engine=engine)["recall"][-1] == 1.0
    rule = r"score column 'pctr' must be a probability in \[0, 1\] \(for calibration_curve\)"
    message = rf"{rule}: 5 rows are not, e\.g\. -2\.2"  # 2.2, -1.4, -0.4, 1.4, -2.2
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.calibration_curve(logits, **ROLES, engine=engine)


def test_negative_weight_is_an_error(engine):
    frame = FRAME.with_columns(w=pl.Series([1.0, -2.0, 1.0, 1.0, 1.0, 1.0]))
    with pytest.raises(sm.InvalidInputError, match=r"weight column 'w' must be finite and >= 0: 1 row is not"):
        sm.roc_curve(frame, **ROLES, weight="w", engine=engine)


@pytest.mark.parametrize(
    ("function", "params", "message"),
    [
        (
            sm.calibration_curve,
            {"bins": 0},
            r"calibration_curve: parameter 'bins' must be an integer from 1 to 1,000,000, got 0",
        ),
        (
            sm.calibration_curve,
            {"bins": 1_000_001},
            r"calibration_curve: parameter 'bins' must be an integer from 1 to 1,000,000, got 1000001",
        ),
        (sm.calibration_curve, {"bins": 2.5}, r"parameter 'bins' must be an integer from 1 to 1,000,000, got 2\.5"),
        (
            sm.calibration_curve,
            {"strategy": "kmeans"},
            r"parameter 'strategy' must be one of 'uniform', 'quantile', got 'kmeans'",
        ),
        (sm.roc_curve, {"max_points": 1}, r"roc_curve: parameter 'max_points' must be an integer >= 2 .*got 1"),
        (sm.pr_curve, {"max_points": True}, r"pr_curve: parameter 'max_points' must be an integer >= 2 .*got True"),
        (sm.roc_curve, {"drop_intermediate": 1}, r"parameter 'drop_intermediate' must be True or False, got 1"),
        (sm.roc_curve, {"engine": "spark"}, r"engine must be one of 'duckdb', 'polars', got 'spark'"),
        (sm.roc_curve, {"by": ["day", "day"]}, r"by lists a column twice"),
        (sm.roc_curve, {"by": "tpr"}, r"slice column\(s\) \['tpr'\] clash with roc_curve columns"),
    ],
)
def test_bad_parameters_are_named(function, params, message):
    with pytest.raises(sm.InvalidParameterError, match=message):
        function(FRAME, **ROLES, **params)


# --- SQL ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(curves.KINDS))
def test_curve_sql_run_by_hand_gives_the_curve(kind):
    function, params = CURVES[kind]
    con = duckdb.connect()
    con.register("impressions", FRAME.to_arrow())
    statement = sm.curve_sql(kind, source="impressions", **ROLES, by="day", **params)
    assert_same(con.sql(statement).pl(), function(FRAME, **ROLES, by="day", **params))


def test_curve_sql_refuses_bad_data_by_itself():
    con = duckdb.connect()
    con.register("impressions", FRAME.with_columns(click=pl.lit(2)).to_arrow())
    with pytest.raises(duckdb.Error, match=r"sqlmetrics: label column 'click' must be 0 or 1"):
        con.sql(sm.curve_sql("roc", source="impressions", **ROLES)).fetchall()


def test_curve_sql_names_unknown_curves_and_parameters():
    with pytest.raises(sm.InvalidParameterError, match=r"curve must be one of 'roc', 'pr', 'calibration', got 'det'"):
        sm.curve_sql("det", source="x.parquet")
    with pytest.raises(sm.InvalidParameterError, match=r"roc_curve: unknown parameter 'bins'"):
        sm.curve_sql("roc", source="x.parquet", bins=3)


@pytest.mark.parametrize("module", [curves, curves.roc, curves.pr, curves.calibration])
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
