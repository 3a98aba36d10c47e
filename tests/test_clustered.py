"""Intervals clustered by a unit (``ci_unit=``, analytic): against the linearization
computed independently, the metric of scikit-learn (numpy's weighted mean for the means
over rows) with the rows reweighted unit by unit and differentiated numerically in each
unit's weight, s_k = ∂f/∂t_k at t = 1, and se² = C/(C − 1)·Σ_k s_k² over the C units;
on both engines; against the bootstrap by unit on a large sample; which metrics are
clustered analytically, which resampled, and the refusals."""

from __future__ import annotations

import functools
import math
import re

import numpy as np
import polars as pl
import polars.testing
import pytest
import sklearn.metrics as skm
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import stats
from test_compare import PAIRED_CONFUSION, _undefined_as_nan
from test_intervals import (
    CLASS_METRICS,
    IMPORTANCE_PARAMS,
    IMPORTANCE_VALUES,
    RESIDUAL_VALUES,
    ROW_VALUES,
    class_calls,
    clipped,
    query_level_calls,
)

import sqlmetrics as sm
from sqlmetrics.errors import InvalidInputError, InvalidParameterError, SqlMetricsError

from strategies import AGREEMENT, examples, impressions

CLUSTERED = sorted(name for name, spec in sm.registry().items() if spec.interval and spec.interval.clustered)
QUERY_MEANS = sorted(name for name in CLUSTERED if sm.registry()[name].interval.name == "query_mean")
REGRESSION = sorted(name for name in CLUSTERED if sm.registry()[name].family == "regression")
MULTICLASS = sorted(name for name in CLUSTERED if sm.registry()[name].family == "multiclass")
OFF_POLICY = sorted(name for name in CLUSTERED if sm.registry()[name].family == "off_policy")
CLASSIFICATION = sorted(set(CLUSTERED) - set(REGRESSION) - set(MULTICLASS) - set(QUERY_MEANS) - set(OFF_POLICY))


def _auc(y, s, w):
    return skm.roc_auc_score(y, s, sample_weight=w) if 0 < w[y == 1].sum() and 0 < w[y == 0].sum() else np.nan


def _mean(values):
    """The weighted mean of each row's value (label, score)."""
    return lambda y, s, w: (w * values(y, s)).sum() / w.sum() if w.sum() > 0 else np.nan


def _residual_mean(name):
    def mean(y, p, w):
        kept = y != 0 if name == "mape" else np.ones_like(y, bool)
        if w[kept].sum() == 0:
            return np.nan
        value = (w[kept] * RESIDUAL_VALUES[name](y, p)).sum() / w[kept].sum()
        return math.sqrt(value) if name == "rmse" else value

    return mean


def _slope_is_infinite(metric, y, scores, w) -> bool:
    """Whether ``metric`` is rmse at 0 under one of ``scores`` (every error 0): rmse = √mse
    takes mse's standard error times the slope 1/(2√mse), infinite there, and its interval
    (or a difference's) is NULL; reweighting units changes nothing, so the numerical
    linearization would say 0."""
    return metric == "rmse" and any(_residual_mean("rmse")(y, score, w) == 0 for score in scores)


def _confusion(name):
    return lambda y, s, w: _undefined_as_nan(name)(y, (s >= 0.5).astype(int), w)


def _class_metric(name):
    """scikit-learn's multi-class metric (zero_division=np.nan: precision_score, f1_score,
    ..., balanced_accuracy_score, matthews_corrcoef) of (label, prediction, weights) under
    the call's parameters (average=..., beta=...)."""
    return lambda y, p, w, **kwargs: CLASS_METRICS[name](y, p, sample_weight=w, **kwargs)


def _kappa(y, p, w, weights="none"):
    """scikit-learn's cohen_kappa_score; NaN where every weight is on one class on both
    sides (the expected disagreement is 0: κ is NULL)."""
    if len(set(y[w > 0]) | set(p[w > 0])) < 2:
        return np.nan
    return skm.cohen_kappa_score(y, p, weights=None if weights == "none" else weights, sample_weight=w)


def _r2(y, p, w):
    """scikit-learn's r2_score; NaN where the targets of positive weight are all equal
    (SST = 0: r2 is NULL)."""
    targets = y[w > 0]
    return skm.r2_score(y, p, sample_weight=w) if len(targets) and targets.min() < targets.max() else np.nan


def _ne(y, s, w):
    """torchrec's normalized entropy (tests/metrics/classification/ne.py) in nats; NaN for
    one class (ne is NULL there)."""
    positives, negatives = (w * y).sum(), (w * (1 - y)).sum()
    if positives == 0 or negatives == 0:
        return np.nan
    p, rate = np.clip(s, 1e-12, 1 - 1e-12), positives / (positives + negatives)
    cross_entropy = -(w * (y * np.log(p) + (1 - y) * np.log(1 - p))).sum()
    return cross_entropy / (-positives * np.log(rate) - negatives * np.log(1 - rate))


def _off_policy(value):
    """An off-policy mean Σ k·x / Σ k of each row's value x(r, w, q̂ₐ, q̂ₑ), w = πₑ/π₀; the
    "score" is the stacked columns π₀, πₑ, q̂ₐ, q̂ₑ (IMPORTANCE_PARAMS' parameters)."""

    def mean(r, columns, k):
        p0, pe, qa, qe = columns
        return (k * value(r, pe / p0, qa, qe)).sum() / k.sum() if k.sum() > 0 else np.nan

    return mean


REFERENCES = {  # each metric of (label, score or prediction, weights), NaN where it is undefined
    "auc": _auc,
    "calibration": lambda y, s, w: (w * s).sum() / (w * y).sum() if (w * y).sum() > 0 else np.nan,
    "ne": _ne,
    "rig": lambda y, s, w: 1 - _ne(y, s, w),
    **{name: _mean(values) for name, values in ROW_VALUES.items()},
    **{name: _confusion(name) for name in PAIRED_CONFUSION},
    **{name: _residual_mean(name) for name in RESIDUAL_VALUES},
    **{name: _class_metric(name) for name in CLASS_METRICS},
    "cohen_kappa": _kappa,
    "r2": _r2,
    **{name: _off_policy(value) for name, value in IMPORTANCE_VALUES.items()},
}
CALLS = {"fbeta": {"beta": 2.0}}

UNIT_ROWS = st.lists(
    st.tuples(st.integers(0, 5), st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0]), st.integers(0, 1), st.integers(1, 3)),
    max_size=40,
)
REGRESSION_UNIT_ROWS = st.lists(
    st.tuples(
        st.integers(0, 5), st.sampled_from([-1.0, 0.0, 0.5, 3.0]), st.sampled_from([-1.5, 0.0, 0.25, 2.0]),
        st.integers(1, 3),
    ),
    max_size=40,
)  # fmt: skip


def linearized_se(metric, y, s, w, units) -> float:
    """√(C/(C − 1)·Σ_k s_k²), s_k the metric's derivative in unit k's weight (central
    differences: each unit's rows reweighted by 1 ± h)."""
    h, parts = 1e-6, []
    for unit in np.unique(units):
        step = np.where(units == unit, h, 0.0)
        parts.append((metric(y, s, w * (1 + step)) - metric(y, s, w * (1 - step))) / (2 * h))
    parts = np.array(parts)
    return math.sqrt(len(parts) / (len(parts) - 1) * (parts**2).sum())


def _check(row, column, metric, reference, y, s, w, units):
    value = reference(y, s, w) if w.sum() > 0 else np.nan
    if math.isnan(value) or len(np.unique(units)) < 2:
        assert row[f"{column}_lo"] is None and row[f"{column}_hi"] is None
        return
    half = stats.norm.ppf(0.95) * linearized_se(reference, y, s, w, units)
    assert row[column] == pytest.approx(value, abs=1e-12)
    assert row[f"{column}_lo"] == pytest.approx(clipped(metric, value - half), abs=1e-7)
    assert row[f"{column}_hi"] == pytest.approx(clipped(metric, value + half), abs=1e-7)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning", "ignore::UserWarning")
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", CLASSIFICATION)
@examples(25)
@given(rows=UNIT_ROWS)
def test_clustered_interval_is_the_linearization_over_units(engine, metric, rows):
    schema = {"unit": pl.Int64, "score": pl.Float64, "label": pl.Int64, "w": pl.Int64}
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    call = sm.metric(metric, **CALLS.get(metric, {}))
    out = sm.evaluate(frame, [call], score="score", weight="w", ci=0.9, ci_unit="unit", engine=engine)
    assert sm.interval_methods([call], ci=0.9, ci_unit="unit")["unit"].to_list() == ["unit"]
    y, s, w, units = (frame[c].to_numpy().astype(float) for c in ("label", "score", "w", "unit"))
    _check(out.row(0, named=True), call.column, metric, REFERENCES[metric], y.astype(int), s, w, units)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", REGRESSION)
@examples(25)
@given(rows=REGRESSION_UNIT_ROWS)
@example(rows=[(0, 0.0, 0.0, 1), (1, 0.5, 0.5, 2)])  # every error 0: rmse 0, its slope infinite
def test_clustered_regression_interval_is_the_linearization_over_units(engine, metric, rows):
    frame = pl.DataFrame(rows, schema={"unit": pl.Int64, "y": pl.Float64, "p": pl.Float64, "w": pl.Int64}, orient="row")
    out = sm.evaluate(frame, [metric], label="y", score="p", weight="w", ci=0.9, ci_unit="unit", engine=engine)
    if metric == "mape":  # its mean is over the rows with a target: the units of the others add nothing
        frame = frame.filter(pl.col("y") != 0)
    y, p, w, units = (frame[c].to_numpy().astype(float) for c in ("y", "p", "w", "unit"))
    if _slope_is_infinite(metric, y, [p], w):
        assert out["rmse"].item() == 0 and out["rmse_lo"].item() is None and out["rmse_hi"].item() is None
        return
    _check(out.row(0, named=True), metric, metric, REFERENCES[metric], y, p, w, units)


OFF_POLICY_UNIT_ROWS = st.lists(  # unit, reward, π₀, πₑ, q̂ₐ, q̂ₑ, weight
    st.tuples(
        st.integers(0, 5), st.sampled_from([0.0, 1.0, 2.5]), st.sampled_from([0.1, 0.5, 1.0]),
        st.sampled_from([0.0, 0.3, 1.0]), st.sampled_from([0.0, 0.4]), st.sampled_from([0.2, 0.9]), st.integers(0, 3),
    ),
    max_size=40,
)  # fmt: skip


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", OFF_POLICY)
@examples(25)
@given(rows=OFF_POLICY_UNIT_ROWS)
def test_clustered_off_policy_interval_is_the_linearization_over_units(engine, metric, rows):
    """The off-policy means over rows (ips, dr, ... at a cap or shrinkage): each unit's
    rows reweighted by 1 ± h, differentiated numerically; weights of 0 too."""
    schema = {"unit": pl.Int64, "r": pl.Float64, "p0": pl.Float64, "pe": pl.Float64, "qa": pl.Float64,
              "qe": pl.Float64, "k": pl.Int64}  # fmt: skip
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    call = sm.metric(metric, **IMPORTANCE_PARAMS.get(metric, {}))
    roles = dict(label="r", propensity="p0", target_propensity="pe", reward_model="qa", target_reward_model="qe")
    out = sm.evaluate(frame, [call], weight="k", ci=0.9, ci_unit="unit", engine=engine, **roles)
    assert sm.interval_methods([call], ci=0.9, ci_unit="unit")["unit"].to_list() == ["unit"]
    r, k, units = (frame[c].to_numpy().astype(float) for c in ("r", "k", "unit"))
    columns = np.stack([frame[c].to_numpy().astype(float) for c in ("p0", "pe", "qa", "qe")])
    _check(out.row(0, named=True), call.column, metric, REFERENCES[metric], r, columns, k, units)


CLASS_UNIT_ROWS = st.lists(  # unit, label, prediction (NULL: the row is left out), weight
    st.tuples(
        st.integers(0, 5), st.one_of(st.none(), st.integers(0, 3)), st.one_of(st.none(), st.integers(0, 3)),
        st.integers(1, 3),
    ),
    max_size=40,
)  # fmt: skip


def _multiclass_calls(metric: str) -> list[sm.MetricCall]:
    """The metric under every average (β = 2), κ under every weighting."""
    if metric == "cohen_kappa":
        return [sm.metric(metric, weights=weights) for weights in ("none", "linear", "quadratic")]
    return class_calls(metric)


# scikit-learn warns where a class has no value (zero_division) or the metric none
@pytest.mark.filterwarnings(
    "ignore::RuntimeWarning", "ignore::UserWarning", "ignore::sklearn.exceptions.UndefinedMetricWarning"
)
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", MULTICLASS)
@examples(25)
@given(rows=CLASS_UNIT_ROWS)
def test_clustered_multiclass_interval_is_the_linearization_over_units(engine, metric, rows):
    """The metrics of the confusion matrix (every average, κ under every weighting): rows
    with a NULL label or prediction are left out, with their units; NULL bounds where the
    metric is undefined or one unit is left."""
    frame = pl.DataFrame(rows, schema={"unit": pl.Int64, "y": pl.Int64, "p": pl.Int64, "w": pl.Int64}, orient="row")
    calls = _multiclass_calls(metric)
    out = sm.evaluate(frame, calls, label="y", prediction="p", weight="w", ci=0.9, ci_unit="unit", engine=engine)
    assert sm.interval_methods(calls, ci=0.9, ci_unit="unit")["unit"].to_list() == ["unit"] * len(calls)
    used = frame.drop_nulls()
    y, p, units = (used[c].to_numpy() for c in ("y", "p", "unit"))
    for call in calls:
        reference = functools.partial(REFERENCES[metric], **call.kwargs)
        _check(out.row(0, named=True), call.column, metric, reference, y, p, used["w"].to_numpy().astype(float), units)


def test_every_clustered_metric_has_a_reference():
    assert sorted(REFERENCES) == sorted(set(CLUSTERED) - set(QUERY_MEANS))
    assert QUERY_MEANS == sorted(call.spec.name for call in query_level_calls())  # test_query_mean_clustered_...


def _query_mean(x, _, g):
    """The metric from its queries' values x and weights g: Σ g·x / Σ g."""
    return (g * x).sum() / g.sum()


def _queries_by_unit(frame: pl.DataFrame, call: sm.MetricCall) -> pl.DataFrame:
    """Each used query's value of ``call`` (the per-query values are checked against their
    references elsewhere: test_intervals), its weight in the mean (gauc: its rows' summed
    weight, impressions; the ranking metrics: 1) and its unit, per slice."""
    roles = {"score": "score", "query": "query"} | ({"weight": "weight"} if call.spec.weighted else {})
    per_query = sm.evaluate(frame, [call], **roles, by=["slice", "query"])
    used = frame.drop_nulls(["query", "label", "score", "unit", *(["weight"] if call.spec.weighted else [])])
    sizes = used.group_by("slice", "query").agg(
        g=pl.col("weight").sum() if call.spec.weighted else pl.lit(1.0), unit=pl.col("unit").first()
    )
    return per_query.join(sizes, on=["slice", "query"], nulls_equal=True).drop_nulls(call.column)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("call", query_level_calls(), ids=str)
@examples(20)
@given(frame=impressions(max_rows=60))
def test_query_mean_clustered_by_another_unit_is_the_linearization_over_units(engine, call, frame):
    """A mean over queries whose unit is not the query (requests of users): each unit's
    queries reweighted by 1 ± h in the mean of the per-query values, differentiated
    numerically; the normal interval. Weights (gauc), ties, NULLs (their rows left out,
    with their units), one-class or empty queries (left out), one unit."""
    frame = frame.with_columns(unit=pl.col("query") // 2)  # two queries per unit
    weighted = {"weight": "weight"} if call.spec.weighted else {}
    result = sm.evaluate(frame, [call], score="score", query="query", by="slice", ci=0.9, ci_unit="unit",
                         engine=engine, **weighted)  # fmt: skip
    values = _queries_by_unit(frame, call)
    column = call.column
    for row in result.iter_rows(named=True):
        same = pl.col("slice").is_null() if row["slice"] is None else pl.col("slice") == row["slice"]
        x = values.filter(same)
        v, g, units = (x[c].to_numpy().astype(float) for c in (column, "g", "unit"))
        if len(v) == 0 or g.sum() == 0 or len(np.unique(units)) < 2:
            assert row[f"{column}_lo"] is None and row[f"{column}_hi"] is None
            continue
        value = _query_mean(v, None, g)
        half = stats.norm.ppf(0.95) * linearized_se(_query_mean, v, None, g, units)
        assert row[column] == pytest.approx(value, abs=1e-12)
        assert row[f"{column}_lo"] == pytest.approx(clipped(call.spec.name, value - half), abs=1e-9)
        assert row[f"{column}_hi"] == pytest.approx(clipped(call.spec.name, value + half), abs=1e-9)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_query_under_two_units_is_refused(engine):
    """A mean over queries is clustered by units that hold whole queries: a request seen
    under two users is refused, naming the columns, the count and an example."""
    frame = pl.DataFrame({
        "request": [1, 1, 2, 2, 3, 3, 4, 4], "user": [10, 11, 10, 10, 12, 13, 12, 12],
        "label": [0, 1] * 4, "score": [0.1, 0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7],
    })  # fmt: skip
    message = (
        "ci_unit='user' must hold each query of column 'request' whole for the clustered interval of gauc: "
        "2 queries have rows of more than one unit, e.g. query = 1"
    )
    with pytest.raises(InvalidInputError, match=re.escape(message)):
        sm.evaluate(frame, ["gauc", "auc"], query="request", ci=0.9, ci_unit="user", engine=engine)
    methods = sm.interval_methods(["gauc", "ndcg@5"], ci=0.9, ci_unit="user", query="request")
    assert methods.select("method", "interval", "unit").rows() == [("mean over queries", "normal", "user")] * 2
    floats = frame.with_columns(pl.col("request") + 0.5)  # an example as SQL writes it, in both engines
    with pytest.raises(InvalidInputError, match=re.escape("e.g. query = 1.5")):
        sm.evaluate(floats, ["gauc"], query="request", ci=0.9, ci_unit="user", engine=engine)
    ok = frame.with_columns(user=pl.col("request") // 3)
    result = sm.evaluate(ok, ["gauc"], query="request", ci=0.9, ci_unit="user", engine=engine)
    assert result["gauc_lo"].item() is not None
    assert sm.evaluate(frame, ["auc"], query="request", ci=0.9, ci_unit="user", engine=engine)["auc_lo"].item()


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_unit_in_two_arms_is_refused_for_the_clustered_intervals(engine):
    """Arms compared with intervals clustered by a unit add the arms' variances, which
    holds only for arms of different units: a user seen in both arms (within a slice) is
    refused, naming the columns, the count and an example; the bootstrap by unit, which
    gives a unit one count for all its arms, is not; a user in two slices is no matter."""
    frame = pl.DataFrame({
        "day": [1, 1, 1, 1, 2, 2, 2, 2], "arm": ["a", "b", "a", "b", "a", "a", "b", "b"],
        "user": [10, 10, 11, 12, 10, 13, 12, 14], "label": [0, 1] * 4,
        "score": [0.1, 0.9, 0.4, 0.3, 0.2, 0.6, 0.5, 0.7],
    })  # fmt: skip
    message = (
        "ci_unit='user' must lie within one arm of column 'arm' for the clustered intervals of logloss (the arms' "
        "variances add only for arms of different units; ci_method='bootstrap' resamples each unit once for all its "
        "arms): 1 unit has rows in more than one arm, e.g. unit = 10"
    )
    arms = {"arm": "arm", "baseline": "a", "by": "day", "ci": 0.9, "ci_unit": "user", "engine": engine}
    with pytest.raises(InvalidInputError, match=re.escape(message)):
        sm.compare(frame, ["logloss"], **arms)
    resampled = sm.compare(frame, ["logloss"], **arms, ci_method="bootstrap", resamples=9)
    assert resampled["method"].to_list() == ["arms bootstrap by unit user: percentile"] * 2
    within = sm.compare(frame.filter(pl.col("day") == 2), ["logloss"], **arms)  # users 10, 13 in a; 12, 14 in b
    assert within["delta_lo"].item() is not None


# 8 rows, two with no unit. AUC over all 8: the positives 0.9, 0.8, 0.7 beat the 4
# negatives (0.1, 0.2, 0.3, 0.65), 0.25 beats 2 of them: 14/16 = 0.875; over the 6 rows
# with a unit every positive beats every negative: 1.0 (what ci_unit= used to report).
NULL_UNITS = pl.DataFrame({
    "u": [1, 1, 2, 2, 3, 3, None, None], "label": [0, 1, 0, 1, 0, 1, 0, 1],
    "score": [0.1, 0.9, 0.2, 0.8, 0.3, 0.7, 0.65, 0.25],
})  # fmt: skip
NULL_UNIT_MESSAGE = (
    "ci_unit='u': every used row must have a unit (the metric uses the row, and an interval clustered or resampled by "
    "unit cannot place a row of unknown unit; fill the unit in, or leave such rows out of the source): 2 rows have a "
    "NULL unit, e.g. the row with "
)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize(
    "keywords",
    [
        {"metrics": ["auc"]},  # DeLong clustered
        {"metrics": ["average_precision"]},  # no clustered form: the bootstrap by unit
        {"metrics": ["logloss"], "ci_method": "bootstrap"},  # the bootstrap by unit from the units' sums
        {"metrics": ["auc", "logloss"], "ci_method": "bootstrap"},  # every row resampled by unit
    ],
    ids=["clustered", "resampled", "unit-sums", "bootstrap"],
)
def test_a_null_unit_is_refused_whatever_the_interval(engine, keywords):
    """The point estimate never depends on ci_unit: a used row without a unit is refused
    (its unit unknown, a clustered interval is not valid), naming the column, the count
    and the row; before, the row was left out of the metric itself (auc 0.875 -> 1.0,
    n_rows 8 -> 6; an all-NULL unit gave n_rows 0). A row left out for a NULL label
    needs no unit, and then the value is the one without ci_unit."""
    keywords = {"resamples": 5, **keywords}
    metrics = keywords.pop("metrics")
    assert sm.evaluate(NULL_UNITS, ["auc"], engine=engine).select("n_rows", "auc").row(0) == (8, 0.875)
    with pytest.raises(InvalidInputError, match=re.escape(NULL_UNIT_MESSAGE)) as refused:
        sm.evaluate(NULL_UNITS, metrics, ci=0.9, ci_unit="u", engine=engine, **keywords)
    if metrics == ["auc"]:  # the row as its statement reads it (one of the unit sums' reads no label)
        assert str(refused.value).endswith("the row with label = 0, score = 0.65")
    no_units = NULL_UNITS.with_columns(u=pl.lit(None, pl.Int64))
    with pytest.raises(InvalidInputError, match=re.escape("8 rows have a NULL unit, e.g. the row with ")):
        sm.evaluate(no_units, metrics, ci=0.9, ci_unit="u", engine=engine, **keywords)
    unlabelled = NULL_UNITS.with_columns(label=pl.when(pl.col("u").is_null()).then(None).otherwise(pl.col("label")))
    clustered = sm.evaluate(unlabelled, metrics, ci=0.9, ci_unit="u", engine=engine, **keywords)
    plain = sm.evaluate(unlabelled, metrics, engine=engine)
    polars.testing.assert_frame_equal(clustered.select(plain.columns), plain, check_exact=False)
    assert clustered.select("n_rows", "n_excluded").row(0) == (6, 2)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_null_unit_is_refused_in_comparisons_and_on_the_command_line(engine, tmp_path, capsys):
    """compare (paired and arms) refuses a used row without a unit as evaluate does, the
    example naming the slice and both scores; the command line names --ci-unit."""
    from sqlmetrics import cli

    frame = NULL_UNITS.with_columns(other=pl.col("score").reverse(), arm=pl.Series(["a", "b"] * 4))
    message = "2 rows have a NULL unit, e.g. the row with label = 0, score = 0.65, other = 0.9"
    with pytest.raises(InvalidInputError, match=re.escape(message)):
        sm.compare(frame, ["auc", "logloss"], scores=("score", "other"), ci_unit="u", engine=engine)
    arm_example = "NULL unit, e.g. the row with arm = a, label = 0, score = 0.65"
    with pytest.raises(InvalidInputError, match=re.escape(arm_example)):
        sm.compare(frame, ["logloss"], arm="arm", baseline="a", ci_unit="u", engine=engine)
    frame.write_parquet(tmp_path / "units.parquet")
    argv = ["eval", str(tmp_path / "units.parquet"), "-m", "auc", "--ci", "0.9", "--ci-unit", "u", "--engine", engine]
    assert cli.main(argv) != 0
    assert "--ci-unit u: every used row must have a unit" in capsys.readouterr().err


@examples(15, AGREEMENT)
@given(
    rows=st.lists(
        st.tuples(st.one_of(st.none(), st.integers(0, 3)), st.one_of(st.none(), st.integers(0, 1)),
                  st.sampled_from([0.1, 0.4, 0.6, 0.9])),
        max_size=20,
    ),
)  # fmt: skip
def test_ci_unit_never_changes_the_value(rows):
    """With or without ci_unit, on both engines: the same n_rows and values, or a refusal
    naming ci_unit exactly when a used row (a label) has no unit."""
    frame = pl.DataFrame(rows, schema={"u": pl.Int64, "label": pl.Int64, "score": pl.Float64}, orient="row")
    metrics = ["auc", "logloss", "average_precision"]
    refused = frame.filter(pl.col("label").is_not_null() & pl.col("u").is_null()).height
    for engine in ("duckdb", "polars"):
        plain = sm.evaluate(frame, metrics, engine=engine)
        if refused:
            with pytest.raises(InvalidInputError, match=re.escape("ci_unit='u': every used row must have a unit")):
                sm.evaluate(frame, metrics, ci=0.9, ci_unit="u", resamples=4, engine=engine)
            continue
        clustered = sm.evaluate(frame, metrics, ci=0.9, ci_unit="u", resamples=4, engine=engine)
        polars.testing.assert_frame_equal(clustered.select(plain.columns), plain, check_exact=False)


def test_a_run_with_judgments_is_clustered_alike_on_both_engines():
    """A run's ranking metric clustered by a unit: DuckDB raised its own BinderException
    (the run's rows did not carry the unit into the judged input); both engines now agree."""
    run = pl.DataFrame({"q": [1, 1, 2, 2, 3, 3, 4, 4], "i": [1, 2] * 4, "u": [1, 1, 1, 1, 2, 2, 3, 3],
                        "score": [0.1, 0.9, 0.3, 0.4, 0.6, 0.7, 0.2, 0.5]})  # fmt: skip
    judgments = pl.DataFrame({"q": [1, 2, 3, 4], "i": [1, 1, 2, 2], "label": [1, 2, 1, 1]})
    keywords = {"query": "q", "item": "i", "judgments": judgments, "ci": 0.9, "ci_unit": "u"}
    duck = sm.evaluate(run, ["ndcg@2", "mrr"], **keywords)
    polars.testing.assert_frame_equal(duck, sm.evaluate(run, ["ndcg@2", "mrr"], **keywords, engine="polars"))
    assert duck["ndcg_at_2_lo"].item() is not None


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("unit", [[[1], [1], [2], [2]], [{"a": 1}, {"a": 1}, {"a": 2}, {"a": 2}]],
                         ids=["list", "struct"])  # fmt: skip
def test_a_list_or_struct_unit_is_refused_on_every_engine(engine, unit):
    """A unit of several values per row: DuckDB took it, polars raised its own
    InvalidOperationError (no min of a list) in an arms comparison; both refuse it, naming
    the column, before any statement runs."""
    frame = pl.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, 0.9, 0.3, 0.4], "u": unit, "arm": ["a", "a", "b", "b"]})
    message = "ci_unit='u': the column holds several values per row (a list, array, struct or map), which cannot be"
    with pytest.raises(SqlMetricsError, match=re.escape(message)):
        sm.compare(frame, ["logloss"], arm="arm", baseline="a", ci_unit="u", engine=engine)
    with pytest.raises(SqlMetricsError, match=re.escape(message)):
        sm.evaluate(frame, ["auc"], ci=0.9, ci_unit="u", engine=engine)
    with pytest.raises(SqlMetricsError, match=re.escape(message)):
        sm.evaluate(frame, ["auc"], ci=0.9, ci_method="bootstrap", ci_unit="u", resamples=3, engine=engine)


def test_a_row_per_unit_is_the_unclustered_interval_but_for_n_over_n_minus_1():
    """With every row its own unit (and weights 1) the linearization is the delta method
    over rows: se² = n/(n − 1)·Σ u²/n² against the unclustered Σ u²/(n·(n − 1)) for a
    mean over rows (equal), and n/(n − 1) times the multinomial Σ q·(g − ḡ)²/n."""
    rng = np.random.default_rng(3)
    frame = pl.DataFrame({"label": rng.integers(0, 2, 500), "score": rng.random(500).round(2)})
    frame = frame.with_row_index("unit")
    metrics = ["logloss", "f1", "calibration"]
    clustered = sm.evaluate(frame, metrics, ci=0.9, ci_unit="unit")
    rows = sm.evaluate(frame, metrics, ci=0.9)
    for metric, factor in (("logloss", 1.0), ("f1", math.sqrt(500 / 499))):
        width = clustered[f"{metric}_hi"] - clustered[f"{metric}_lo"]
        assert width.item() == pytest.approx(factor * (rows[f"{metric}_hi"] - rows[f"{metric}_lo"]).item(), rel=1e-9)


def test_the_bootstrap_by_unit_agrees_on_a_large_sample():
    """Users whose rows share an effect: the analytic interval by user is as wide as the
    bootstrap by user (1000 resamples, within 10%), and wider than the rows' interval."""
    rng = np.random.default_rng(11)
    users = rng.integers(0, 400, 8000)
    effect = rng.normal(0, 1, 400)[users]
    label = (rng.random(8000) < 1 / (1 + np.exp(-effect))).astype(int)
    score = 1 / (1 + np.exp(-(0.8 * effect + rng.normal(0, 0.5, 8000))))
    frame = pl.DataFrame({"label": label, "score": score.round(3), "user": users})
    metrics = ["auc", "logloss", "calibration", "f1", "precision"]
    analytic = sm.evaluate(frame, metrics, ci=0.95, ci_unit="user")
    resampled = sm.evaluate(frame, metrics, ci=0.95, ci_unit="user", ci_method="bootstrap", resamples=1000)
    rows = sm.evaluate(frame, metrics, ci=0.95)
    for metric in metrics:
        width = (analytic[f"{metric}_hi"] - analytic[f"{metric}_lo"]).item()
        assert width == pytest.approx((resampled[f"{metric}_hi"] - resampled[f"{metric}_lo"]).item(), rel=0.1)
        assert width > (rows[f"{metric}_hi"] - rows[f"{metric}_lo"]).item()


def test_metrics_without_a_clustered_form_are_resampled_by_unit():
    frame = pl.DataFrame({"label": [0, 1] * 20, "score": [i / 40 for i in range(40)], "user": list(range(10)) * 4})
    methods = sm.interval_methods(["auc", "average_precision"], ci=0.9, ci_unit="user")
    assert methods.select("metric", "method", "unit").rows() == [
        ("auc", "DeLong", "user"),
        ("average_precision", "bootstrap", "user"),
    ]
    result = sm.evaluate(frame, ["auc", "average_precision"], ci=0.9, ci_unit="user", resamples=20)
    assert result.select("auc_lo", "average_precision_lo").null_count().row(0) == (0, 0)
    with pytest.raises(
        InvalidParameterError, match="ci_unit='user': no analytic interval clustered by it for average_precision"
    ):
        sm.evaluate(frame, ["auc", "average_precision"], ci=0.9, ci_unit="user", ci_method="analytic")
    with pytest.raises(InvalidParameterError, match=r"for average_precision \(a paired comparison\)"):
        sm.compare(frame.with_columns(b=pl.col("score") ** 2), ["auc", "average_precision"], scores=("score", "b"),
                   ci_unit="user", ci_method="analytic")  # fmt: skip


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_mean_over_queries_clustered_by_its_own_queries_keeps_its_t(engine):
    """ci_unit naming the query column: the t over queries already takes each query as
    an independent unit, so gauc and ndcg keep it (the same bounds as without ci_unit),
    paired too, while auc is clustered by the same column."""
    rng = np.random.default_rng(5)
    frame = pl.DataFrame(
        {"label": rng.integers(0, 2, 600), "score": rng.random(600).round(2), "user": rng.integers(0, 40, 600)}
    ).with_columns(b=(pl.col("score") + 0.1 * pl.col("label")).round(2))
    roles = {"query": "user", "ci": 0.9, "engine": engine}
    clustered = sm.evaluate(frame, ["gauc", "ndcg@5", "auc"], ci_unit="user", **roles)
    alone = sm.evaluate(frame, ["gauc", "ndcg@5"], **roles)
    bounds = ["gauc_lo", "gauc_hi", "ndcg_at_5_lo", "ndcg_at_5_hi"]
    assert clustered.select(bounds).row(0) == pytest.approx(alone.select(bounds).row(0), abs=1e-12)
    methods = sm.interval_methods(["gauc", "auc"], ci_unit="user", query="user")
    assert methods.select("method", "unit").rows() == [("Student's t over queries", "user"), ("DeLong", "user")]
    paired = sm.compare(frame, ["gauc"], scores=("score", "b"), ci_unit="user", ci_method="analytic", **roles)
    unclustered = sm.compare(frame, ["gauc"], scores=("score", "b"), **roles)
    spread = ["delta_lo", "delta_hi", "p_value", "method"]
    assert paired.select(spread).row(0)[:3] == pytest.approx(unclustered.select(spread).row(0)[:3], abs=1e-12)
    assert paired["method"].item() == unclustered["method"].item() == "paired t over queries"


def test_the_command_line_says_which_intervals_are_clustered(tmp_path, capsys):
    """sqlmetrics eval --ci-unit: the table as evaluate returns it, and the intervals line
    names each interval's unit: gauc's queries are its users (before, the line asked
    interval_methods without the query and failed after the table was written)."""
    from sqlmetrics import cli

    rng = np.random.default_rng(2)
    frame = pl.DataFrame({"click": rng.integers(0, 2, 300), "pctr": rng.random(300), "user": rng.integers(0, 30, 300)})
    frame.write_parquet(tmp_path / "logs.parquet")
    argv = ["eval", str(tmp_path / "logs.parquet"), "-m", "auc,gauc,ndcg@5", "--label", "click", "--score", "pctr"]
    assert cli.main([*argv, "--query", "user", "--ci", "0.9", "--ci-unit", "user", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    expected = sm.evaluate(frame, ["auc", "gauc", "ndcg@5"], label="click", score="pctr", query="user", ci=0.9,
                           ci_unit="user")  # fmt: skip
    assert pl.read_csv(out.encode()).row(0) == pytest.approx(expected.row(0), abs=1e-9)
    assert (
        "intervals at 90%: auc DeLong (normal, clustered by user); gauc Student's t over queries (Student's t, "
        "clustered by user); ndcg_at_5 Student's t over queries (Student's t, clustered by user)"
    ) in err


# the metrics sm.compare pairs (scores of the same rows) whose interval has a clustered form
PAIRED = sorted(name for name in CLASSIFICATION + REGRESSION if sm.registry()[name].interval.paired)
PAIRED_UNIT_ROWS = st.lists(  # unit, score a, score b (NULL: the row is left out), label, weight
    st.tuples(
        st.integers(0, 5), st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0]),
        st.one_of(st.none(), st.sampled_from([0.0, 0.3, 0.5, 0.9])), st.integers(0, 1), st.integers(1, 3),
    ),
    min_size=1,  # without rows, no row to compare
    max_size=40,
)  # fmt: skip


def _difference(reference):
    """The difference of a metric under two scores of the same rows (the columns of s)."""
    return lambda y, s, w: reference(y, s[:, 1], w) - reference(y, s[:, 0], w)


def _check_difference(row, difference, y, s, w, units):
    """The paired comparison's row against the linearization of ``difference`` over the
    units: the normal interval and its two-sided p-value."""
    value = difference(y, s, w) if w.sum() > 0 else np.nan
    if math.isnan(value) or len(np.unique(units)) < 2:
        assert row["delta_lo"] is None and row["delta_hi"] is None
        return
    se = linearized_se(difference, y, s, w, units)
    assert row["delta"] == pytest.approx(value, abs=1e-12)
    assert row["delta_lo"] == pytest.approx(value - stats.norm.ppf(0.95) * se, abs=1e-7)
    assert row["delta_hi"] == pytest.approx(value + stats.norm.ppf(0.95) * se, abs=1e-7)
    if se > 1e-9:
        assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(value) / se), abs=1e-6)
    assert row["method"].startswith("paired, clustered by unit: ")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning", "ignore::UserWarning")
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", PAIRED)
@examples(20)
@given(rows=PAIRED_UNIT_ROWS)
@example(rows=[(0, 0.0, None, 0, 1), (0, 0.0, 0.0, 0, 1), (1, 0.0, 0.0, 0, 1)])  # both rmse 0 (found by hypothesis)
def test_clustered_paired_difference_is_the_linearization_over_units(engine, metric, rows):
    """Two scores of the same rows clustered by a unit: the difference's part per unit is
    the difference of the unit's parts under the two scores; against the difference of
    the two metrics (scikit-learn's, numpy's) with each unit's rows reweighted by 1 ± h,
    differentiated numerically. A row with a NULL score is left out of both."""
    schema = {"unit": pl.Int64, "a": pl.Float64, "b": pl.Float64, "label": pl.Int64, "w": pl.Int64}
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    call = sm.metric(metric, **CALLS.get(metric, {}))
    result = sm.compare(frame, [call], scores=("a", "b"), weight="w", ci=0.9, ci_unit="unit", ci_method="analytic",
                        engine=engine)  # fmt: skip
    used = frame.drop_nulls()
    y, a, b, w, units = (used[c].to_numpy().astype(float) for c in ("label", "a", "b", "w", "unit"))
    if metric in REGRESSION:  # the label as the target
        reference = REFERENCES[metric]
    else:
        reference = lambda y, s, w, r=REFERENCES[metric]: r(y.astype(int), s, w)  # noqa: E731
    if metric == "mape":  # its mean is over the rows with a target: the units of the others add nothing
        kept = y != 0
        y, a, b, w, units = y[kept], a[kept], b[kept], w[kept], units[kept]
    if _slope_is_infinite(metric, y, [a, b], w):
        assert result["delta_lo"].item() is None and result["delta_hi"].item() is None
        return
    _check_difference(result.row(0, named=True), _difference(reference), y, np.column_stack([a, b]), w, units)


PAIRED_CLASS_UNIT_ROWS = st.lists(  # unit, true class, prediction a, prediction b (NULL: left out), weight
    st.tuples(
        st.integers(0, 5), st.integers(0, 2), st.integers(0, 2), st.one_of(st.none(), st.integers(0, 2)),
        st.integers(1, 3),
    ),
    min_size=1,
    max_size=40,
)  # fmt: skip


# scikit-learn warns where a class has no value (zero_division) or the metric none
@pytest.mark.filterwarnings(
    "ignore::RuntimeWarning", "ignore::UserWarning", "ignore::sklearn.exceptions.UndefinedMetricWarning"
)
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", MULTICLASS)
@examples(15)
@given(rows=PAIRED_CLASS_UNIT_ROWS)
def test_clustered_paired_class_difference_is_the_linearization_over_units(engine, metric, rows):
    """Two predicted classes of the same rows (predictions=) clustered by a unit, every
    average and κ weighting: against the difference of scikit-learn's metric under the
    two predictions with each unit's rows reweighted by 1 ± h, differentiated
    numerically. A row with a NULL prediction is left out of both."""
    schema = dict.fromkeys(["unit", "y", "a", "b", "w"], pl.Int64)
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    calls = _multiclass_calls(metric)
    result = sm.compare(frame, calls, predictions=("a", "b"), label="y", weight="w", ci=0.9, ci_unit="unit",
                        engine=engine)  # fmt: skip
    used = frame.drop_nulls()
    y, a, b, units = (used[c].to_numpy() for c in ("y", "a", "b", "unit"))
    w = used["w"].to_numpy().astype(float)
    for call, row in zip(calls, result.iter_rows(named=True)):
        assert row["metric"] == call.column
        reference = functools.partial(REFERENCES[metric], **call.kwargs)
        _check_difference(row, _difference(reference), y, np.column_stack([a, b]), w, units)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("call", [sm.gauc(), sm.metric("ndcg@2"), sm.metric("mrr")], ids=str)
@examples(20)
@given(frame=impressions(max_rows=60))
def test_clustered_paired_query_mean_is_the_linearization_over_units(engine, call, frame):
    """A mean over queries under two scores, clustered by units of two queries: each
    unit's part is the difference of its queries' parts under the two scores; against
    the difference of the two means of the per-query values with each unit's queries
    reweighted by 1 ± h. Weights (gauc), ties, NULLs, one-class queries, one unit."""
    frame = frame.with_columns(unit=pl.col("query") // 2, b=(1 - pl.col("score")).round(1))
    weighted = {"weight": "weight"} if call.spec.weighted else {}
    result = sm.compare(frame, [call], scores=("score", "b"), query="query", by="slice", ci=0.9, ci_unit="unit",
                        ci_method="analytic", engine=engine, **weighted)  # fmt: skip
    used = frame.filter(pl.col("b").is_not_null())  # a row with either score NULL is left out of both
    first, second = _queries_by_unit(used, call), _queries_by_unit(used.with_columns(score="b"), call)
    values = second.join(first.select("slice", "query", a=call.column), on=["slice", "query"], nulls_equal=True)
    for row in result.iter_rows(named=True):
        same = pl.col("slice").is_null() if row["slice"] is None else pl.col("slice") == row["slice"]
        x = values.filter(same)
        s = np.column_stack([x["a"].to_numpy().astype(float), x[call.column].to_numpy().astype(float)])
        g, units = x["g"].to_numpy().astype(float), x["unit"].to_numpy().astype(float)
        difference = lambda _, s, g: _query_mean(s[:, 1], None, g) - _query_mean(s[:, 0], None, g)  # noqa: E731
        if len(x) == 0 or g.sum() == 0:
            assert row["delta_lo"] is None
            continue
        _check_difference(row, difference, None, s, g, units)


def test_to_sql_of_clustered_and_unit_resampled_metrics_runs():
    """One statement with an interval clustered by the unit (auc) and a bootstrap by the
    same unit (average_precision): the resampled rows carry the units' numbers, which the
    clustered interval reads (they were dropped, and DuckDB found no unit_id); its row of
    the data as it is (replicate 0) holds evaluate's auc interval."""
    import duckdb

    rng = np.random.default_rng(0)
    t = pl.DataFrame({"label": rng.integers(0, 2, 200), "score": rng.random(200), "user": rng.integers(0, 20, 200)})
    statement = sm.to_sql(["auc", "average_precision"], source="t", ci=0.9, ci_unit="user", resamples=5)
    data = duckdb.sql(statement).pl().filter(pl.col("sqlmetrics_replicate") == 0)
    expected = sm.evaluate(t, ["auc"], ci=0.9, ci_unit="user")
    bounds = ["auc", "auc_lo", "auc_hi"]
    assert data.select(bounds).row(0) == pytest.approx(expected.select(bounds).row(0), abs=1e-12)
