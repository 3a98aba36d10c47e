"""Confidence intervals (``ci=``): DeLong's interval for auc against a brute-force
O(P·N) computation of the placements and against the fast (midrank) DeLong algorithm
of Sun & Xu (2014); the t intervals over queries against scipy; the t quantiles
against scipy; every engine against the others; coverage on simulated data with a
known population value; bad input."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy import stats
from sklearn import metrics as skm

import sqlmetrics as sm
from sqlmetrics import intervals
from sqlmetrics.errors import InvalidParameterError
from sqlmetrics.registry import registry

from strategies import AGREEMENT, examples, impressions


def with_interval(method: str) -> list[str]:
    """Every registered metric whose analytic interval is ``method`` (``Interval.name``,
    its module in sqlmetrics/intervals/): the tests below take their metrics from here,
    so a new metric is tested by its method's reference test, and fails there until the
    test knows its reference value."""
    return sorted(name for name, spec in registry().items() if spec.interval and spec.interval.name == method)


def query_level_calls() -> list[sm.MetricCall]:
    """Every metric with the interval over queries, at a cutoff of 2 where it takes one
    (so that the cutoff's steps are tested too)."""
    return [
        sm.metric(name, k=2) if any(p.name == "k" for p in registry()[name].params) else sm.metric(name)
        for name in with_interval("query_mean")
    ]


def brute_force_delong(scores, labels, weights=None) -> tuple[float, float]:
    """AUC and DeLong's se from every positive–negative pair; integer weights repeat rows."""
    scores, labels = np.asarray(scores, float), np.asarray(labels)
    if weights is not None:
        repeat = np.asarray(weights, int)
        scores, labels = np.repeat(scores, repeat), np.repeat(labels, repeat)
    pos, neg = scores[labels == 1], scores[labels == 0]
    wins = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    auc = wins.mean()
    v10, v01 = wins.mean(axis=1), wins.mean(axis=0)
    variance = v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg)
    return auc, math.sqrt(variance)


def fast_delong(scores, labels) -> tuple[float, float]:
    """Sun & Xu's fast DeLong (IEEE Signal Processing Letters 21(11), 2014): placements
    from midranks within each class and over both."""
    scores, labels = np.asarray(scores, float), np.asarray(labels)
    pos, neg = scores[labels == 1], scores[labels == 0]
    m, n = len(pos), len(neg)
    tx, ty = stats.rankdata(pos), stats.rankdata(neg)
    tz = stats.rankdata(np.concatenate([pos, neg]))
    auc = tz[:m].sum() / (m * n) - (m + 1) / (2 * n)
    v01 = (tz[:m] - tx) / n
    v10 = 1 - (tz[m:] - ty) / m
    return auc, math.sqrt(v01.var(ddof=1) / m + v10.var(ddof=1) / n)


def test_t_quantiles_equal_scipy():
    for level in (0.5, 0.9, 0.95, 0.99, 0.999):
        assert intervals.quantile(level, None) == pytest.approx(stats.norm.ppf((1 + level) / 2), rel=1e-14)
        for df in [*range(1, 130), 150, 200, 500, 1000, 10**6]:
            assert intervals.quantile(level, df) == pytest.approx(stats.t.ppf((1 + level) / 2, df), rel=1e-10)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("delong"))
@given(
    rows=st.lists(st.tuples(st.sampled_from([0.1, 0.2, 0.5, 0.7]), st.integers(0, 1), st.integers(1, 3)), max_size=30),
    weighted=st.booleans(),
)
def test_auc_interval_equals_brute_force_delong(engine, metric, rows, weighted):
    frame = pl.DataFrame(rows, schema={"score": pl.Float64, "label": pl.Int64, "w": pl.Int64}, orient="row")
    weight = "w" if weighted else None
    out = sm.evaluate(frame, [metric], score="score", weight=weight, ci=0.9, engine=engine).row(0, named=True)
    labels = frame["label"].to_numpy()
    counts = frame["w"].to_numpy() if weighted else np.ones(len(frame), int)
    positives, negatives = counts[labels == 1].sum(), counts[labels == 0].sum()
    if positives < 2 or negatives < 2:
        assert out["auc_lo"] is None and out["auc_hi"] is None
        return
    auc, se = brute_force_delong(frame["score"], labels, counts if weighted else None)
    z = stats.norm.ppf(0.95)
    assert out["auc"] == pytest.approx(auc, abs=1e-12)
    assert out["auc_lo"] == pytest.approx(max(0.0, auc - z * se), abs=1e-9)
    assert out["auc_hi"] == pytest.approx(min(1.0, auc + z * se), abs=1e-9)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_perfect_separation_has_a_point_interval(engine):
    """Every placement equal: DeLong's variance is 0, and the interval the point 1. Taken
    as E[x²] − E[x]² in one pass it left 2e-17 of rounding, an interval down to
    0.999999994 here; the squares about the mean (two passes) leave none."""
    rows = [(0.1, 0, 2), (0.2, 0, 3), (0.2, 0, 2), (0.7, 1, 2), (0.1, 0, 1), (0.2, 0, 2)]
    frame = pl.DataFrame(rows, schema={"score": pl.Float64, "label": pl.Int64, "w": pl.Int64}, orient="row")
    out = sm.evaluate(frame, ["auc"], score="score", weight="w", ci=0.9, engine=engine).row(0, named=True)
    assert out["auc"] == 1.0
    assert out["auc_lo"] == pytest.approx(1.0, abs=1e-15)


def test_auc_interval_equals_fast_delong_on_larger_data():
    rng = np.random.default_rng(7)
    labels = rng.random(20_000) < 0.3
    scores = np.round(rng.normal(labels * 0.8, 1.0), 2)  # rounded: many ties
    frame = pl.DataFrame({"score": scores, "label": labels.astype(int)})
    auc, se = fast_delong(scores, labels.astype(int))
    z = stats.norm.ppf(0.975)
    for engine in ("duckdb", "polars"):
        out = sm.evaluate(frame, ["auc"], score="score", ci=0.95, engine=engine).row(0, named=True)
        assert out["auc_lo"] == pytest.approx(auc - z * se, abs=1e-9)
        assert out["auc_hi"] == pytest.approx(auc + z * se, abs=1e-9)


EPS = 2.220446049250313e-16
ROW_VALUES = {  # each row's value (label, score) whose weighted mean the metric is
    "logloss": lambda y, s: -np.log(np.where(y == 1, np.clip(s, EPS, 1 - EPS), 1 - np.clip(s, EPS, 1 - EPS))),
    "brier": lambda y, s: (y - s) ** 2,
    "score_mean": lambda y, s: s,
    "label_mean": lambda y, s: y.astype(float),
}
PROPORTIONS = {  # (successes, trials) of each row, predicting positive at score >= 0.5
    "accuracy": lambda y, p: (y == p, np.ones_like(y, bool)),
    "precision": lambda y, p: (y == 1, p == 1),
    "recall": lambda y, p: (p == 1, y == 1),
    "specificity": lambda y, p: (p == 0, y == 0),
}
ROWS = st.lists(
    st.tuples(st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0]), st.integers(0, 1), st.integers(1, 3)), max_size=30
)


def _repeated(rows, weighted: bool) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    """The rows as a frame, and their labels and scores with each row repeated by its
    weight (weights count as frequencies)."""
    frame = pl.DataFrame(rows, schema={"score": pl.Float64, "label": pl.Int64, "w": pl.Int64}, orient="row")
    repeat = frame["w"].to_numpy() if weighted else np.ones(len(frame), int)
    return frame, np.repeat(frame["label"].to_numpy(), repeat), np.repeat(frame["score"].to_numpy(), repeat)


def clipped(metric: str, bound: float) -> float:
    """A bound clipped to the metric's range, as every interval is (docs/intervals.md)."""
    low, high = registry()[metric].range or (-math.inf, math.inf)
    return min(max(bound, low), high)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("row_mean"))
@given(rows=ROWS, weighted=st.booleans())
def test_row_mean_interval_is_the_standard_error_of_the_mean(engine, metric, rows, weighted):
    frame, y, s = _repeated(rows, weighted)
    out = sm.evaluate(frame, [metric], score="score", weight="w" if weighted else None, ci=0.9, engine=engine)
    row = out.row(0, named=True)
    if len(y) < 2:
        assert row[f"{metric}_lo"] is None and row[f"{metric}_hi"] is None
        return
    values = ROW_VALUES[metric](y, s)
    half = stats.norm.ppf(0.95) * stats.sem(values)
    assert row[f"{metric}_lo"] == pytest.approx(clipped(metric, values.mean() - half), abs=1e-9)
    assert row[f"{metric}_hi"] == pytest.approx(clipped(metric, values.mean() + half), abs=1e-9)


RESIDUAL_VALUES = {  # each row's value (target y, prediction p) whose weighted mean the metric is
    "mae": lambda y, p: np.abs(p - y),
    "mse": lambda y, p: (p - y) ** 2,
    "mean_error": lambda y, p: p - y,
    "mape": lambda y, p: np.abs((p - y)[y != 0] / y[y != 0]),  # over the rows with a target
    "rmse": lambda y, p: (p - y) ** 2,  # √ of their mean: the delta method, se / (2·√mean)
}
REGRESSION_ROWS = st.lists(
    st.tuples(st.sampled_from([-1.5, 0.0, 0.25, 2.0]), st.sampled_from([-1.0, 0.0, 0.5, 3.0]), st.integers(1, 3)),
    max_size=30,
)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("residual_mean"))
@given(rows=REGRESSION_ROWS, weighted=st.booleans())
def test_regression_mean_interval_is_the_standard_error_of_the_mean(engine, metric, rows, weighted):
    """mae, mse, mean_error and mape are weighted means of a value of each row: their
    interval is the normal one with scipy's standard error of the mean, weights
    counting as repeated rows; rmse's is mse's through the delta method."""
    frame = pl.DataFrame(rows, schema={"score": pl.Float64, "label": pl.Float64, "w": pl.Int64}, orient="row")
    repeat = frame["w"].to_numpy() if weighted else np.ones(len(frame), int)
    y, p = np.repeat(frame["label"].to_numpy(), repeat), np.repeat(frame["score"].to_numpy(), repeat)
    out = sm.evaluate(frame, [metric], score="score", weight="w" if weighted else None, ci=0.9, engine=engine)
    row = out.row(0, named=True)
    values = RESIDUAL_VALUES[metric](y, p)
    if len(values) < 2:
        assert row[f"{metric}_lo"] is None and row[f"{metric}_hi"] is None
        return
    center, se = values.mean(), stats.sem(values)
    if metric == "rmse":
        center, se = math.sqrt(center), (se / (2 * math.sqrt(center)) if center > 0 else math.nan)
    if math.isnan(se):  # every error 0: √ has no slope there
        assert row[f"{metric}_lo"] is None and row[f"{metric}_hi"] is None
        return
    half = stats.norm.ppf(0.95) * se
    assert row[metric] == pytest.approx(center, abs=1e-12)
    assert row[f"{metric}_lo"] == pytest.approx(clipped(metric, center - half), abs=1e-9)
    assert row[f"{metric}_hi"] == pytest.approx(clipped(metric, center + half), abs=1e-9)


R2_METRICS = {"r2": skm.r2_score}  # the metrics of r2_delta, as scikit-learn computes them from weighted rows


def infinitesimal_jackknife_se(metric, y: np.ndarray, p: np.ndarray, w: np.ndarray) -> float:
    """The delta method's standard error of a smooth function of weighted means, from the
    metric itself (scikit-learn's) differentiated numerically in each row's weight: a
    row's influence is u_j = W·∂f/∂w_j (the gradient in the means times the row's values
    less their means, which is what moving a row's weight does to the means), and
    se² = Σ w·u² / (W·(W − 1)), weights counting as frequencies."""
    total, influences = w.sum(), np.zeros(len(w))
    for j in range(len(w)):
        step = np.zeros(len(w))
        step[j] = 1e-6 * w[j]
        influences[j] = (
            total * (metric(y, p, sample_weight=w + step) - metric(y, p, sample_weight=w - step)) / (2 * step[j])
        )
    return math.sqrt((w * influences**2).sum() / (total * (total - 1)))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("r2_delta"))
@given(rows=REGRESSION_ROWS, weighted=st.booleans())
def test_r2_interval_is_the_delta_method_of_scikit_learns_r2(engine, metric, rows, weighted):
    """r2 = 1 − SSE/SST: the normal interval with the delta method's se, against
    scikit-learn's r2_score differentiated numerically in each row's weight (weights
    counting as repeated rows); NULL where SST = 0 (one target) or W ≤ 1."""
    frame = pl.DataFrame(rows, schema={"score": pl.Float64, "label": pl.Float64, "w": pl.Int64}, orient="row")
    out = sm.evaluate(frame, [metric], score="score", weight="w" if weighted else None, ci=0.9, ci_method="analytic",
                      engine=engine)  # fmt: skip
    row = out.row(0, named=True)
    y, p = frame["label"].to_numpy(), frame["score"].to_numpy()
    w = frame["w"].to_numpy().astype(float) if weighted else np.ones(len(frame))
    if w.sum() < 2 or len(np.unique(y)) < 2:  # one target: SST = 0, r2 undefined
        assert row[f"{metric}_lo"] is None and row[f"{metric}_hi"] is None
        return
    value = R2_METRICS[metric](y, p, sample_weight=w)
    half = stats.norm.ppf(0.95) * infinitesimal_jackknife_se(R2_METRICS[metric], y, p, w)
    assert row[metric] == pytest.approx(value, abs=1e-12)
    assert row[f"{metric}_lo"] == pytest.approx(clipped(metric, value - half), rel=1e-6, abs=1e-7)
    assert row[f"{metric}_hi"] == pytest.approx(clipped(metric, value + half), rel=1e-6, abs=1e-7)


def test_r2_interval_is_numpys_delta_method_over_the_sums():
    """The same se from the sums' covariance: r2 = 1 − m_e²/(m_y² − m_y²) of the means of
    each row's (e², y, y²), g its gradient (central differences), S numpy's sample
    covariance of those values, se² = g'·S·g / n; 500 rows, both engines."""
    rng = np.random.default_rng(11)
    y = rng.normal(2.0, 1.5, 500)
    p = 0.7 * y + rng.normal(0.0, 1.0, 500)
    values = np.stack([(p - y) ** 2, y, y**2])
    means = values.mean(axis=1)

    def r2(m):
        return 1 - m[0] / (m[2] - m[1] ** 2)

    gradient = np.array([(r2(means + step) - r2(means - step)) / 2e-7 for step in np.eye(3) * 1e-7])
    se = math.sqrt(gradient @ np.cov(values, ddof=1) @ gradient / len(y))
    frame = pl.DataFrame({"y": y, "p": p})
    for engine in ("duckdb", "polars"):
        row = sm.evaluate(frame, ["r2"], label="y", score="p", ci=0.95, engine=engine).row(0, named=True)
        assert row["r2"] == pytest.approx(skm.r2_score(y, p), abs=1e-12)
        assert row["r2_hi"] - row["r2"] == pytest.approx(stats.norm.ppf(0.975) * se, rel=1e-6)


REGRESSION_SLICES = st.lists(
    st.tuples(
        st.sampled_from(["x", "y", None]),
        st.sampled_from([-1.5, 0.0, 0.25, 2.0, None]),
        st.sampled_from([-1.0, 0.0, 0.5, 3.0, None]),
        st.sampled_from([0.0, 0.5, 1.0, 2.5, None]),
    ),
    max_size=40,
)


@examples(60, AGREEMENT)
@given(rows=REGRESSION_SLICES)
def test_engines_agree_on_regression_intervals(rows):
    """Every regression metric with an analytic interval, by slice (a NULL slice too), with
    NULL scores, targets and weights, weights of 0 and below 1, and the paired difference
    of two predictions: DuckDB and polars agree."""
    frame = pl.DataFrame(rows, schema={"s": pl.String, "p": pl.Float64, "y": pl.Float64, "w": pl.Float64}, orient="row")
    metrics = [name for name, spec in registry().items() if spec.family == "regression" and spec.interval]
    kwargs = dict(label="y", score="p", weight="w", by="s", ci=0.8, ci_method="analytic")
    assert_frame_equal(
        sm.evaluate(frame, metrics, **kwargs),
        sm.evaluate(frame, metrics, engine="polars", **kwargs),
        abs_tol=1e-9,
        check_dtypes=False,
    )
    paired = frame.with_columns(q=(pl.col("p") * 0.5 + 0.25))  # a second prediction of the same rows
    del kwargs["score"]
    assert_frame_equal(
        sm.compare(paired, metrics, scores=("p", "q"), **kwargs),
        sm.compare(paired, metrics, scores=("p", "q"), engine="polars", **kwargs),
        abs_tol=1e-9,
        check_dtypes=False,
    )


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("proportion"))
@given(rows=ROWS, weighted=st.booleans())
def test_proportion_interval_is_binomial(engine, metric, rows, weighted):
    frame, y, s = _repeated(rows, weighted)
    out = sm.evaluate(frame, [metric], score="score", weight="w" if weighted else None, ci=0.9, engine=engine)
    row = out.row(0, named=True)
    successes, trials = PROPORTIONS[metric](y, (s >= 0.5).astype(int))
    n = trials.sum()
    if n == 0:
        assert row[f"{metric}_lo"] is None and row[f"{metric}_hi"] is None
        return
    p = (successes & trials).sum() / n
    half = stats.norm.ppf(0.95) * math.sqrt(p * (1 - p) / n)
    assert row[f"{metric}_lo"] == pytest.approx(clipped(metric, p - half), abs=1e-9)
    assert row[f"{metric}_hi"] == pytest.approx(clipped(metric, p + half), abs=1e-9)


def _query_values(frame: pl.DataFrame, call: sm.MetricCall) -> pl.DataFrame:
    """Each query's value of ``metric`` (the per-query numbers are checked against their
    references elsewhere) and its row count and positives, per slice."""
    per_query = sm.evaluate(frame, [call], score="score", query="query", by=["slice", "query"])
    sizes = (
        frame.drop_nulls(["query", "label", "score"])
        .group_by("slice", "query")
        .agg(rows=pl.len(), positives=pl.col("label").sum())
    )
    return per_query.join(sizes, on=["slice", "query"], nulls_equal=True).drop_nulls(call.column)


@pytest.mark.parametrize("call", query_level_calls(), ids=str)
@given(frame=impressions(max_rows=60, weighted=False, nulls=False))
def test_query_level_interval_is_students_t_over_queries(call, frame):
    metric, column = call.spec.name, call.column
    result = sm.evaluate(frame, [call], score="score", query="query", by="slice", ci=0.95)
    values = _query_values(frame, call)
    for row in result.iter_rows(named=True):
        same = pl.col("slice").is_null() if row["slice"] is None else pl.col("slice") == row["slice"]
        x = values.filter(same)
        g = x["rows"].to_numpy().astype(float) if metric == "gauc" else np.ones(len(x))
        v = x[column].to_numpy()
        if len(v) < 2:
            assert row[f"{column}_lo"] is None and row[f"{column}_hi"] is None
            continue
        mean = (g * v).sum() / g.sum()
        se = math.sqrt(len(v) / (len(v) - 1) * (g**2 * (v - mean) ** 2).sum()) / g.sum()
        if metric != "gauc":  # equal weights: scipy's standard error of the mean
            assert se == pytest.approx(stats.sem(v), abs=1e-12)
        half = stats.t.ppf(0.975, len(v) - 1) * se
        assert row[column] == pytest.approx(mean, abs=1e-12)
        assert row[f"{column}_lo"] == pytest.approx(clipped(metric, mean - half), abs=1e-9)
        assert row[f"{column}_hi"] == pytest.approx(clipped(metric, mean + half), abs=1e-9)


# each metric of the confusion counts by scikit-learn, from four rows (one per cell: tp,
# fp, tn, fn) weighted by the cells' shares, NaN where it is undefined
CELL_LABELS, CELL_PREDICTIONS = np.array([1, 0, 0, 1]), np.array([1, 1, 0, 0])
CONFUSION_METRICS = {
    "f1": lambda q: skm.f1_score(CELL_LABELS, CELL_PREDICTIONS, sample_weight=q, zero_division=np.nan),
    "fbeta": lambda q: skm.fbeta_score(CELL_LABELS, CELL_PREDICTIONS, beta=2.0, sample_weight=q, zero_division=np.nan),
    "balanced_accuracy": lambda q: skm.balanced_accuracy_score(CELL_LABELS, CELL_PREDICTIONS, sample_weight=q),
    "mcc": lambda q: (
        skm.matthews_corrcoef(CELL_LABELS, CELL_PREDICTIONS, sample_weight=q)
        if min(q[0] + q[1], q[0] + q[3], q[2] + q[1], q[2] + q[3]) > 0
        else np.nan  # scikit-learn gives 0 where the denominator is 0; the metric is NULL there
    ),
}
CONFUSION_CALLS = {"fbeta": {"beta": 2.0}}


def delta_method_se(metric, q: np.ndarray, total: float) -> float:
    """The multinomial delta method with scikit-learn's metric and a numerical gradient
    (central differences in each cell's share that is not 0: a cell of share 0 adds
    nothing): se² = (Σ q·g² − (Σ q·g)²) / W."""
    h, gradient = 1e-6, np.zeros(len(q))
    for cell in np.flatnonzero(q):
        step = np.eye(len(q))[cell] * min(h, q[cell] / 2)
        gradient[cell] = (metric(q + step) - metric(q - step)) / (2 * step[cell])
    return math.sqrt(max((q * gradient**2).sum() - (q * gradient).sum() ** 2, 0.0) / total)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning", "ignore::UserWarning")
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("confusion_delta"))
@given(rows=ROWS, weighted=st.booleans())
def test_confusion_delta_interval_is_the_multinomial_delta_method(engine, metric, rows, weighted):
    """f1, fbeta, balanced accuracy and mcc: the normal interval with the delta method's
    se over the confusion cells' multinomial shares, against scikit-learn's metric
    differentiated numerically; weights count as repeated rows."""
    frame, y, s = _repeated(rows, weighted)
    call = sm.metric(metric, **CONFUSION_CALLS.get(metric, {}))
    out = sm.evaluate(frame, [call], score="score", weight="w" if weighted else None, ci=0.9, engine=engine)
    row, column = out.row(0, named=True), call.column
    p = (s >= 0.5).astype(int)
    counts = np.array([((y == a) & (p == b)).sum() for a, b in zip(CELL_LABELS, CELL_PREDICTIONS)], float)
    total = counts.sum()
    value = CONFUSION_METRICS[metric](counts / total) if total else math.nan
    if math.isnan(value):
        assert row[f"{column}_lo"] is None and row[f"{column}_hi"] is None
        return
    half = stats.norm.ppf(0.95) * delta_method_se(CONFUSION_METRICS[metric], counts / total, total)
    assert row[column] == pytest.approx(value, abs=1e-12)
    assert row[f"{column}_lo"] == pytest.approx(clipped(metric, value - half), abs=1e-7)
    assert row[f"{column}_hi"] == pytest.approx(clipped(metric, value + half), abs=1e-7)


def cross_entropy(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each row's cross-entropy (nats), its score clamped as torchrec's NE clamps it (1e-12)."""
    p = np.clip(s, 1e-12, 1 - 1e-12)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def normalized_entropy(means: np.ndarray) -> float:
    """torchrec's NE of the means of (cross-entropy, label): the mean over the base rate's entropy."""
    rate = means[1]
    return means[0] / (-rate * np.log(rate) - (1 - rate) * np.log(1 - rate))


HISTOGRAM_METRICS = {  # each metric: each row's values (of its score and label), a function of their means
    "calibration": (lambda s, y: [s, y], lambda means: means[0] / means[1]),
    "ne": (lambda s, y: [cross_entropy(s, y), y], normalized_entropy),
    "rig": (lambda s, y: [cross_entropy(s, y), y], lambda means: 1 - normalized_entropy(means)),
}


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("histogram_delta"))
@given(rows=ROWS, weighted=st.booleans())
def test_histogram_delta_interval_is_the_delta_method_over_rows(engine, metric, rows, weighted):
    """calibration, ne, rig: the normal interval with se² = g'·S·g / n, S numpy's sample
    covariance of the rows' values ((score, label); (cross-entropy, label) for ne and
    rig), g the metric's gradient at their means by central differences; weights count
    as repeated rows. NULL where the metric is undefined (no positive; ne: one class)."""
    frame, y, s = _repeated(rows, weighted)
    out = sm.evaluate(frame, [metric], score="score", weight="w" if weighted else None, ci=0.9, engine=engine)
    row = out.row(0, named=True)
    row_values, f = HISTOGRAM_METRICS[metric]
    values = np.stack(row_values(s, y.astype(float))) if len(y) else np.zeros((2, 0))
    with np.errstate(all="ignore"):
        defined = len(y) >= 2 and np.isfinite(f(values.mean(axis=1)))
    if not defined:
        assert row[f"{metric}_lo"] is None and row[f"{metric}_hi"] is None
        return
    means = values.mean(axis=1)
    steps = np.eye(2) * 1e-5  # five-point central differences: an error of order step⁴
    gradient = np.array(
        [(8 * (f(means + h) - f(means - h)) - (f(means + 2 * h) - f(means - 2 * h))) / 12e-5 for h in steps]
    )
    se = math.sqrt(max(gradient @ np.cov(values, ddof=1) @ gradient, 0.0) / len(y))
    half = stats.norm.ppf(0.95) * se
    assert row[metric] == pytest.approx(f(means), rel=1e-12)
    assert row[f"{metric}_lo"] == pytest.approx(clipped(metric, f(means) - half), rel=1e-7, abs=1e-9)
    assert row[f"{metric}_hi"] == pytest.approx(clipped(metric, f(means) + half), rel=1e-7, abs=1e-9)


CLASS_ROWS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 3)), max_size=40)


# scikit-learn warns where κ is undefined (one class on both sides): the test asserts NULL there
@pytest.mark.filterwarnings(
    "ignore::RuntimeWarning", "ignore::UserWarning", "ignore::sklearn.exceptions.UndefinedMetricWarning"
)
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("weights", ["none", "linear", "quadratic"])
@pytest.mark.parametrize("metric", with_interval("kappa_delta"))
@given(rows=CLASS_ROWS, weighted=st.booleans())
def test_kappa_interval_is_the_multinomial_delta_method(engine, weights, metric, rows, weighted):
    """Cohen's κ: the normal interval with the delta method's se over the confusion
    matrix's cell shares, against scikit-learn's cohen_kappa_score (weighted by the
    shares of K² rows, one per cell) differentiated numerically."""
    frame = pl.DataFrame(rows, schema={"y": pl.Int64, "p": pl.Int64, "w": pl.Int64}, orient="row")
    call = sm.metric(metric, weights=weights)
    out = sm.evaluate(frame, [call], label="y", prediction="p", weight="w" if weighted else None, ci=0.9, engine=engine)
    row, column = out.row(0, named=True), call.column
    classes = sorted(set(frame["y"]) | set(frame["p"]))
    counts = np.zeros((len(classes), len(classes)))
    for y, p, w in rows:
        counts[classes.index(y), classes.index(p)] += w if weighted else 1
    total = counts.sum()
    cell_true, cell_predicted = np.divmod(np.arange(len(classes) ** 2), len(classes))
    mode = None if weights == "none" else weights

    def kappa(q):
        return skm.cohen_kappa_score(cell_true, cell_predicted, weights=mode, sample_weight=q)

    value = kappa(counts.ravel() / total) if total else math.nan
    if math.isnan(value):
        assert row[f"{column}_lo"] is None and row[f"{column}_hi"] is None
        return
    q, h, gradient = counts.ravel() / total, 1e-6, np.zeros(len(classes) ** 2)
    for cell in np.flatnonzero(q):
        step = np.eye(len(q))[cell] * min(h, q[cell] / 2)
        gradient[cell] = (kappa(q + step) - kappa(q - step)) / (2 * step[cell])
    se = math.sqrt(max((q * gradient**2).sum() - (q * gradient).sum() ** 2, 0.0) / total)
    half = stats.norm.ppf(0.95) * se
    assert row[column] == pytest.approx(value, abs=1e-12)
    assert row[f"{column}_lo"] == pytest.approx(clipped(metric, value - half), abs=1e-7)
    assert row[f"{column}_hi"] == pytest.approx(clipped(metric, value + half), abs=1e-7)


def _mcc_or_nan(y, p, sample_weight):
    """scikit-learn's matthews_corrcoef, nan where it is undefined (fewer than two classes
    carrying weight on either side; scikit-learn gives 0 there, the metric NULL)."""
    sides = [{c for c, w in zip(side, sample_weight) if w > 0} for side in (y, p)]
    return skm.matthews_corrcoef(y, p, sample_weight=sample_weight) if min(map(len, sides)) > 1 else math.nan


CLASS_METRICS = {  # each multi-class metric from scikit-learn, over rows (y, p) weighted by sample_weight
    "multiclass_accuracy": skm.accuracy_score,
    "multiclass_precision": lambda y, p, **kw: skm.precision_score(y, p, zero_division=np.nan, **kw),
    "multiclass_recall": lambda y, p, **kw: skm.recall_score(y, p, zero_division=np.nan, **kw),
    "multiclass_f1": lambda y, p, **kw: skm.f1_score(y, p, zero_division=np.nan, **kw),
    "multiclass_fbeta": lambda y, p, **kw: skm.fbeta_score(y, p, zero_division=np.nan, **kw),
    "multiclass_balanced_accuracy": skm.balanced_accuracy_score,
    "multiclass_mcc": _mcc_or_nan,
}
CLASS_ROWS_WITH_NULLS = st.lists(
    st.tuples(
        st.integers(0, 1),
        st.one_of(st.none(), st.integers(0, 3)),
        st.one_of(st.none(), st.integers(0, 3)),
        st.one_of(st.none(), st.integers(0, 3)),
    ),
    max_size=40,
)


def class_calls(metric: str) -> list[sm.MetricCall]:
    """The metric under every average it takes (and β = 2 for fbeta)."""
    spec = registry()[metric]
    extra = {"beta": 2.0} if any(p.name == "beta" for p in spec.params) else {}
    if not any(p.name == "average" for p in spec.params):
        return [sm.metric(metric, **extra)]
    return [sm.metric(metric, average=average, **extra) for average in ("macro", "micro", "weighted")]


def class_delta_method(metric, call: sm.MetricCall, counts: np.ndarray) -> tuple[float, float]:
    """The metric (scikit-learn's, over K² rows, one per cell of the confusion matrix
    ``counts``, weighted by its share) and the multinomial delta method's se with its
    gradient by central differences in each cell's share that is not 0 (a cell of share
    0 adds nothing): se² = (Σ q·g² − (Σ q·g)²) / W."""
    k, total = len(counts), counts.sum()
    cell_true, cell_predicted = np.divmod(np.arange(k * k), k)

    def f(q):
        return metric(cell_true, cell_predicted, sample_weight=q, **call.kwargs)

    q = counts.ravel() / total
    value = f(q)
    if math.isnan(value):
        return value, math.nan
    h, gradient = 1e-6, np.zeros(k * k)
    for cell in np.flatnonzero(q):
        step = np.eye(k * k)[cell] * min(h, q[cell] / 2)
        gradient[cell] = (f(q + step) - f(q - step)) / (2 * step[cell])
    return value, math.sqrt(max((q * gradient**2).sum() - (q * gradient).sum() ** 2, 0.0) / total)


# scikit-learn warns where a class has no value (zero_division) or the metric none
@pytest.mark.filterwarnings(
    "ignore::RuntimeWarning", "ignore::UserWarning", "ignore::sklearn.exceptions.UndefinedMetricWarning"
)
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("class_confusion_delta"))
@given(rows=CLASS_ROWS_WITH_NULLS)
def test_class_confusion_delta_interval_is_the_multinomial_delta_method(engine, metric, rows):
    """The multi-class metrics (every average): the normal interval with the delta
    method's se over the confusion matrix's cell shares, against scikit-learn's metric
    (zero_division=np.nan, as the metric) differentiated numerically; per slice, rows
    with a NULL label, prediction or weight left out, weights 0 to 3 counting as repeated
    rows (a class of weight 0 is still a class, as in scikit-learn). NULL bounds where
    the metric is undefined."""
    frame = pl.DataFrame(rows, schema={"s": pl.Int64, "y": pl.Int64, "p": pl.Int64, "w": pl.Int64}, orient="row")
    calls = class_calls(metric)
    out = sm.evaluate(frame, calls, label="y", prediction="p", weight="w", by="s", ci=0.9, engine=engine)
    for row in out.iter_rows(named=True):
        used = [(y, p, w) for s, y, p, w in rows if s == row["s"] and None not in (y, p, w)]
        classes = sorted({y for y, _, _ in used} | {p for _, p, _ in used})
        counts = np.zeros((len(classes), len(classes)))
        for y, p, w in used:
            counts[classes.index(y), classes.index(p)] += w
        for call in calls:
            column = call.column
            value, se = class_delta_method(CLASS_METRICS[metric], call, counts) if counts.sum() else (math.nan,) * 2
            if math.isnan(value):
                assert row[column] is None and row[f"{column}_lo"] is None and row[f"{column}_hi"] is None
                continue
            half = stats.norm.ppf(0.95) * se
            assert row[column] == pytest.approx(value, abs=1e-12)
            assert row[f"{column}_lo"] == pytest.approx(clipped(metric, value - half), abs=1e-7), call
            assert row[f"{column}_hi"] == pytest.approx(clipped(metric, value + half), abs=1e-7), call


@examples(60, AGREEMENT)
@given(rows=CLASS_ROWS_WITH_NULLS)
def test_engines_agree_on_multiclass_intervals(rows):
    """DuckDB and polars give every multi-class interval to 1e-9 (slices, NULLs, weights 0)."""
    frame = pl.DataFrame(rows, schema={"s": pl.Int64, "y": pl.Int64, "p": pl.Int64, "w": pl.Int64}, orient="row")
    calls = [call for metric in with_interval("class_confusion_delta") for call in class_calls(metric)]
    calls += [sm.metric("cohen_kappa", weights="quadratic")]
    kwargs = dict(label="y", prediction="p", weight="w", by="s", ci=0.8)
    duck = sm.evaluate(frame, calls, **kwargs)
    assert_frame_equal(duck, sm.evaluate(frame, calls, engine="polars", **kwargs), abs_tol=1e-9, check_dtypes=False)


IMPORTANCE_VALUES = {  # each row's value whose weighted mean the off-policy metric is (obp 0.5.7's round rewards)
    "ips": lambda r, w, qa, qe: w * r,
    "clipped_ips": lambda r, w, qa, qe: np.minimum(w, 1.5) * r,  # cap = 1.5 (IMPORTANCE_CALLS)
    "dm": lambda r, w, qa, qe: qe,
    "dr": lambda r, w, qa, qe: qe + w * (r - qa),
    "switch_dr": lambda r, w, qa, qe: qe + (w <= 1.5) * w * (r - qa),
    "dr_os": lambda r, w, qa, qe: qe + 3 * w / (w * w + 3) * (r - qa),  # shrinkage = 3
    "mean_weight": lambda r, w, qa, qe: w,  # the diagnostic: the mean importance weight itself
}
IMPORTANCE_PARAMS = {"clipped_ips": {"cap": 1.5}, "switch_dr": {"cap": 1.5}, "dr_os": {"shrinkage": 3}}
OFF_POLICY_ROWS = st.lists(
    st.tuples(
        st.sampled_from([0.0, 1.0, 2.5]),  # reward
        st.sampled_from([0.1, 0.5, 1.0]),  # π₀
        st.sampled_from([0.0, 0.3, 1.0]),  # πₑ: w = 0 to 10
        st.sampled_from([0.0, 0.4]),  # q̂ₐ
        st.sampled_from([0.2, 0.9]),  # q̂ₑ
        st.integers(1, 3),  # row weight
    ),
    max_size=30,
)
OFF_POLICY_ROLES = dict(
    label="r", propensity="p0", target_propensity="pe", reward_model="qa", target_reward_model="qe", weight="k"
)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("importance_mean"))
@given(rows=OFF_POLICY_ROWS)
def test_off_policy_mean_interval_is_the_standard_error_of_the_mean(engine, metric, rows):
    """ips, clipped_ips, dm, dr, switch_dr, dr_os and mean_weight are means of a value of each row:
    their interval is the normal one with scipy's standard error of the mean, weights
    counting as repeated rows; for ips that is vw-estimators' Gaussian interval."""
    schema = dict.fromkeys(["r", "p0", "pe", "qa", "qe"], pl.Float64) | {"k": pl.Int64}
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    call = sm.metric(metric, **IMPORTANCE_PARAMS.get(metric, {}))
    row = sm.evaluate(frame, [call], ci=0.9, engine=engine, **OFF_POLICY_ROLES).row(0, named=True)
    r, p0, pe, qa, qe = (np.repeat(frame[c].to_numpy(), frame["k"].to_numpy()) for c in ("r", "p0", "pe", "qa", "qe"))
    values = IMPORTANCE_VALUES[metric](r, pe / p0, qa, qe)
    if len(values) < 2:
        assert row[f"{call.column}_lo"] is None and row[f"{call.column}_hi"] is None
        return
    center, half = values.mean(), stats.norm.ppf(0.95) * stats.sem(values)
    assert row[call.column] == pytest.approx(center, abs=1e-12)
    assert row[f"{call.column}_lo"] == pytest.approx(clipped(metric, center - half), abs=1e-9)
    assert row[f"{call.column}_hi"] == pytest.approx(clipped(metric, center + half), abs=1e-9)
    if metric == "ips":
        from estimators.bandits import gaussian

        vw = gaussian.Interval()
        for reward, logged, target in zip(r, p0, pe):
            vw.add_example(p_log=logged, r=reward, p_pred=target)
        # vw's variance is E[x²] − E[x]² in one pass: on equal values (x = 2.9999999999999996
        # on every row) its cancellation leaves ~1e-15, a half-width of ~4e-8 where ours is 0
        slack = 1e-9 + 1e-7 * max(1.0, abs(center))
        assert [row["ips_lo"], row["ips_hi"]] == pytest.approx(vw.get(alpha=0.1), abs=slack)


def snips_influences(r, w, qa, qe):
    """snips = Σ w·r / Σ w and each row's influence on it, w·(r − V) / w̄ (the delta method)."""
    value = (w * r).sum() / w.sum()
    return value, w * (r - value) / w.mean()


def sndr_influences(r, w, qa, qe):
    """sndr = mean(q̂ₑ) + Σ w·(r − q̂ₐ) / Σ w and each row's influence on it."""
    ratio = (w * (r - qa)).sum() / w.sum()
    return qe.mean() + ratio, (qe - qe.mean()) + w * ((r - qa) - ratio) / w.mean()


IMPORTANCE_RATIOS = {"snips": snips_influences, "sndr": sndr_influences}


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", with_interval("importance_ratio"))
@given(rows=OFF_POLICY_ROWS)
def test_off_policy_ratio_interval_is_the_delta_method(engine, metric, rows):
    """snips and sndr are ratios of sums over rows: their interval is the normal one with
    the standard error of the mean of each row's influence (the delta method), weights
    counting as repeated rows; NULL where every importance weight is 0 (no ratio)."""
    schema = dict.fromkeys(["r", "p0", "pe", "qa", "qe"], pl.Float64) | {"k": pl.Int64}
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    row = sm.evaluate(frame, [metric], ci=0.9, engine=engine, **OFF_POLICY_ROLES).row(0, named=True)
    r, p0, pe, qa, qe = (np.repeat(frame[c].to_numpy(), frame["k"].to_numpy()) for c in ("r", "p0", "pe", "qa", "qe"))
    w = pe / p0
    if len(w) < 2 or w.sum() == 0:
        assert row[f"{metric}_lo"] is None and row[f"{metric}_hi"] is None
        return
    center, influences = IMPORTANCE_RATIOS[metric](r, w, qa, qe)
    half = stats.norm.ppf(0.95) * stats.sem(influences)
    assert row[metric] == pytest.approx(center, abs=1e-12)
    assert row[f"{metric}_lo"] == pytest.approx(center - half, abs=1e-9)
    assert row[f"{metric}_hi"] == pytest.approx(center + half, abs=1e-9)


REFERENCE_TESTS = {  # interval method -> its test against an independent reference
    "delong": test_auc_interval_equals_brute_force_delong,
    "row_mean": test_row_mean_interval_is_the_standard_error_of_the_mean,
    "residual_mean": test_regression_mean_interval_is_the_standard_error_of_the_mean,
    "proportion": test_proportion_interval_is_binomial,
    "query_mean": test_query_level_interval_is_students_t_over_queries,
    "confusion_delta": test_confusion_delta_interval_is_the_multinomial_delta_method,
    "histogram_delta": test_histogram_delta_interval_is_the_delta_method_over_rows,
    "kappa_delta": test_kappa_interval_is_the_multinomial_delta_method,
    "class_confusion_delta": test_class_confusion_delta_interval_is_the_multinomial_delta_method,
    "r2_delta": test_r2_interval_is_the_delta_method_of_scikit_learns_r2,
    "importance_mean": test_off_policy_mean_interval_is_the_standard_error_of_the_mean,
    "importance_ratio": test_off_policy_ratio_interval_is_the_delta_method,
}


def test_every_interval_method_and_metric_has_a_reference():
    """A new interval method fails here until a test compares it with a reference, and a
    new metric of a method until that test knows the metric's reference value."""
    methods = {spec.interval.name for spec in registry().values() if spec.interval is not None}
    assert methods <= REFERENCE_TESTS.keys(), f"no reference test for {sorted(methods - REFERENCE_TESTS.keys())}"
    assert sorted(ROW_VALUES) == with_interval("row_mean")
    assert sorted(RESIDUAL_VALUES) == with_interval("residual_mean")
    assert sorted(PROPORTIONS) == with_interval("proportion")
    assert sorted(CONFUSION_METRICS) == with_interval("confusion_delta")
    assert sorted(HISTOGRAM_METRICS) == with_interval("histogram_delta")
    assert sorted(CLASS_METRICS) == with_interval("class_confusion_delta")
    assert sorted(R2_METRICS) == with_interval("r2_delta")
    assert sorted(IMPORTANCE_VALUES) == with_interval("importance_mean")
    assert sorted(IMPORTANCE_RATIOS) == with_interval("importance_ratio")


@examples(60, AGREEMENT)
@given(frame=impressions(max_rows=60))
def test_engines_agree_on_intervals(frame):
    classification = [name for name, spec in registry().items() if spec.family == "classification" and spec.interval]
    metrics = [*classification, "ndcg@3", "mrr", "map"]
    kwargs = dict(score="score", query="query", weight="weight", by="slice", ci=0.8)
    weighted = [m for m in metrics if sm.metric(m).spec.weighted]
    duck = sm.evaluate(frame, weighted, **kwargs)
    assert_frame_equal(duck, sm.evaluate(frame, weighted, engine="polars", **kwargs), abs_tol=1e-9, check_dtypes=False)
    kwargs.pop("weight")
    duck = sm.evaluate(frame, metrics, **kwargs)
    assert_frame_equal(duck, sm.evaluate(frame, metrics, engine="polars", **kwargs), abs_tol=1e-9, check_dtypes=False)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"ci_method": "bootstrap"}, {"ci_unit": "query"}, {"ci_method": "analytic", "metrics": ["auc", "gauc"]}],
)
def test_interval_methods_say_which_method_evaluate_takes(kwargs):
    """sm.interval_methods names, per result column, the method evaluate takes: where it
    says bootstrap, the metric's bounds are those of the metric bootstrapped alone (with
    its resamples, seed and unit); where it names an analytic method, those of the
    metric's analytic interval."""
    metrics = kwargs.pop("metrics", ["auc", "average_precision", "calibration", "logloss"])
    rng = np.random.default_rng(4)
    frame = pl.DataFrame(
        {"label": rng.integers(0, 2, 60), "score": rng.random(60).round(1), "query": rng.integers(0, 9, 60)}
    )
    methods = sm.interval_methods(metrics, resamples=7, seed=3, **kwargs)
    assert methods["metric"].to_list() == [sm.metric(m).column for m in metrics]
    call = {"score": "score", "query": "query", "ci": 0.95, "resamples": 7, "seed": 3}
    evaluated = sm.evaluate(frame, metrics, **call, **kwargs)
    for metric, row in zip(metrics, methods.iter_rows(named=True)):
        bounds = [f"{row['metric']}_lo", f"{row['metric']}_hi"]
        if row["method"] == "bootstrap":
            assert (row["interval"], row["resamples"], row["seed"]) == ("percentile", 7, 3)
            assert row["unit"] == kwargs.get("ci_unit", "row")
            alone = sm.evaluate(frame, [metric], **call, ci_method="bootstrap", ci_unit=kwargs.get("ci_unit"))
        else:  # clustered by ci_unit where it is given
            assert row["method"] == registry()[row["metric"]].interval.method and row["resamples"] is None
            unit = "query" if registry()[row["metric"]].interval.name == "query_mean" else "row"
            assert row["unit"] == kwargs.get("ci_unit", unit)
            alone = sm.evaluate(frame, [metric], **call, ci_method="analytic", ci_unit=kwargs.get("ci_unit"))
        assert_frame_equal(evaluated.select(bounds), alone.select(bounds), abs_tol=1e-12)


def test_interval_methods_route_names_as_evaluate_does():
    """With a prediction column, evaluate takes "f1" for multiclass_f1 (the delta method
    over the confusion matrix, for every average), with class scores "auc" for
    multiclass_auc (bootstrapped): sm.interval_methods, given the same roles, names the
    method evaluate takes, not the binary metric's."""
    frame = pl.DataFrame({"y": [0, 1, 2, 2, 1, 0, 2], "p": [0, 2, 2, 1, 1, 0, 2]})
    metrics = ["accuracy", "f1", sm.metric("multiclass_precision", average="micro"), "mcc"]
    methods = sm.interval_methods(metrics, prediction="p", resamples=7)
    assert methods["method"].to_list() == ["delta method"] * 4
    evaluated = sm.evaluate(frame, metrics, label="y", prediction="p", ci=0.95, ci_method="analytic")
    assert [f"{m}_lo" for m in methods["metric"]] == [c for c in evaluated.columns if c.endswith("_lo")]
    assert sm.interval_methods(["auc"], class_scores=["a", "b"])["method"].to_list() == ["bootstrap"]
    assert sm.interval_methods(["auc"])["method"].to_list() == ["DeLong"]


def test_interval_columns_follow_each_metric_and_not_its_companions():
    frame = pl.DataFrame({"label": [0, 1, 1, 0], "score": [0.1, 0.4, 0.35, 0.8], "query": [1, 1, 2, 2]})
    result = sm.evaluate(frame, ["auc", "gauc"], query="query", score="score", ci=0.95)
    assert result.columns == [
        "n_rows", "n_excluded", "auc", "auc_lo", "auc_hi", "gauc", "gauc_lo", "gauc_hi", "gauc_groups", "gauc_skipped"
    ]  # fmt: skip
    assert sm.evaluate(frame, ["auc"], score="score").columns == ["n_rows", "n_excluded", "auc"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"ci": 1.0}, "between 0 and 1"),
        ({"ci": 0}, "between 0 and 1"),
        ({"ci": True}, "between 0 and 1"),
        ({"ci": "95%"}, "between 0 and 1"),
        ({"ci": 0.95, "ci_method": "jackknife"}, "ci_method must be one of"),
        (
            {"ci": 0.95, "ci_method": "analytic", "metrics": ["auc", "average_precision"]},
            "no analytic interval for average_precision",
        ),
        (
            {"ci": 0.95, "ci_method": "analytic", "metrics": [sm.metric("hit_rate@2", average="micro")]},
            "no analytic interval for hit_rate",
        ),
        ({"ci": 0.95, "metrics": [sm.metric("hit_rate@2", average="micro")]}, "no bootstrap for hit_rate"),
    ],
)
def test_bad_interval_requests_are_refused(kwargs, message):
    frame = pl.DataFrame({"label": [0, 1], "score": [0.1, 0.4], "query": [1, 1]})
    metrics = kwargs.pop("metrics", ["auc"])
    with pytest.raises(InvalidParameterError, match=message):
        sm.evaluate(frame, metrics, score="score", query="query", **kwargs)


def _coverage(draw_sample, truth: float, metric: str, runs: int, **kwargs) -> float:
    covered = 0
    for run in range(runs):
        row = sm.evaluate(draw_sample(np.random.default_rng(run)), [metric], ci=0.95, **kwargs).row(0, named=True)
        covered += row[f"{metric}_lo"] <= truth <= row[f"{metric}_hi"]
    return covered / runs


def test_auc_interval_covers_the_binormal_auc():
    """Binormal scores N(0, 1) vs N(μ, 1): AUC = Φ(μ/√2). 300 fixed seeds (the full
    1,000-run study is in docs/intervals.md); 95% intervals cover it ~95% of the time."""
    mu = 1.0

    def sample(rng):
        labels = rng.random(300) < 0.4
        return pl.DataFrame({"label": labels.astype(int), "score": rng.normal(labels * mu, 1.0)})

    assert 0.92 <= _coverage(sample, stats.norm.cdf(mu / math.sqrt(2)), "auc", 300, score="score") <= 0.98


def test_query_mean_interval_covers_the_population_mean():
    """Each of 40 queries has one relevant item among 5, placed uniformly at random: the
    population MRR is (1 + 1/2 + 1/3 + 1/4 + 1/5)/5."""

    def sample(rng):
        queries = np.repeat(np.arange(40), 5)
        labels = np.concatenate([rng.permutation([1, 0, 0, 0, 0]) for _ in range(40)])
        return pl.DataFrame({"query": queries, "label": labels, "score": np.tile([5.0, 4, 3, 2, 1], 40)})

    truth = sum(1 / p for p in range(1, 6)) / 5
    assert 0.92 <= _coverage(sample, truth, "mrr", 300, score="score", query="query") <= 0.98


def test_a_template_header_ending_in_a_parenthesis_still_takes_its_interval(monkeypatch):
    """A metric's interval opens WITH steps after its template's header unless the header
    ends a step: a header whose last comment line ended in ")" was read as a step, and the
    statement lost its WITH (a parser error); the comments aside, it is the same interval."""
    from sqlmetrics.sqltext import templates

    frame = pl.DataFrame({"r": [1.0, 0.0, 1.0, 0.0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5]})
    roles = dict(label="r", propensity="p0", target_propensity="pe")
    expected = sm.evaluate(frame, ["ips"], ci=0.9, **roles)
    loaded = templates.load

    def load(name: str) -> str:
        text = loaded(name)
        if name == "off_policy/ips.sql":  # the header's last line now ends in ")"
            text = text.replace("off_policy/ips.py.\n", "off_policy/ips.py (the polars form)\n", 1)
            assert "(the polars form)" in text
        return text

    monkeypatch.setattr(templates, "load", load)
    assert "(the polars form)" in sm.to_sql(["ips"], source="t", ci=0.9, **roles)
    assert_frame_equal(sm.evaluate(frame, ["ips"], ci=0.9, **roles), expected)
