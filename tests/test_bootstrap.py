"""The Poisson bootstrap (sqlmetrics/binding/bootstrap.py): the counts follow Poisson(1) and are
uncorrelated; each interval is the percentile interval of the metric recomputed by
scikit-learn on rows reweighted by an independent implementation of the counts; DuckDB
and polars draw the same resamples (the same numbers to 1e-9); the same seed gives the
same interval; on large samples the bootstrap's width is within 10% of the analytic
interval's; bad requests are refused."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import f1_score, mean_absolute_error, roc_auc_score

import sqlmetrics as sm
from sqlmetrics import api
from sqlmetrics.binding import bootstrap
from sqlmetrics.errors import ColumnNotFoundError, InvalidParameterError

from strategies import AGREEMENT, examples, impressions, regression_rows


def reference_count(unit_id: int, replicate: int, seed: int) -> int:
    """The Poisson(1) count of (unit, replicate, seed), from the formulas of the module
    docstring in plain Python integers, with the distribution function from scipy."""
    p = 2**31 - 1
    h = (48_271 * (unit_id % p) + 69_621 * replicate + 40_692 * seed % p + 12_345) % p
    h = (h * h + 1_103_515_245) % p
    h = (h * h + 12_345) % p
    if replicate == 0:
        return 1
    for k in range(10):
        if h < math.ceil(stats.poisson.cdf(k, 1) * p):
            return k
    return 10


def sql_counts(units: int, replicates: int, seed: int) -> np.ndarray:
    """count_sql over unit ids 1..units and replicates 1..replicates, run by DuckDB."""
    first, second, third = bootstrap.hash_steps_sql(seed)
    sql = (
        f"SELECT {bootstrap.count_sql('h3')} AS k FROM (SELECT unit_id, replicate, {third} AS h3 FROM ("
        f"SELECT unit_id, replicate, {second} AS h2 FROM (SELECT unit_id, replicate, {first} AS h1 FROM "
        f"(SELECT range AS unit_id FROM range(1, {units + 1})) CROSS JOIN "
        f"(SELECT range AS replicate FROM range(1, {replicates + 1}))))) ORDER BY unit_id, replicate"
    )
    return np.array(duckdb.sql(sql).fetchnumpy()["k"]).reshape(units, replicates)


def test_counts_follow_poisson_and_are_uncorrelated():
    counts = sql_counts(20_000, 20, seed=3)
    n = counts.size
    for k in range(5):
        expected = stats.poisson.pmf(k, 1)
        assert abs((counts == k).mean() - expected) < 5 * math.sqrt(expected * (1 - expected) / n)
    assert abs(counts.mean() - 1) < 5 / math.sqrt(n) and abs(counts.var() - 1) < 0.03
    bound = 5 / math.sqrt(counts.shape[0])
    for a, b in [(counts[:, 0], counts[:, 1]), (counts[:-1, 0], counts[1:, 0]), (counts[:-1, 5], counts[1:, 6])]:
        assert abs(np.corrcoef(a, b)[0, 1]) < bound  # across replicates, neighbouring units, both
    other_seed = sql_counts(20_000, 1, seed=4)[:, 0]
    assert abs(np.corrcoef(counts[:, 0], other_seed)[0, 1]) < bound


def test_sql_polars_and_python_draw_the_same_counts():
    frame = pl.DataFrame({"unit_id": np.repeat(np.arange(1, 301), 5), "replicate": np.tile(np.arange(5), 300)})
    polars_counts = frame.select(bootstrap.counts_polars(pl.col("unit_id"), pl.col("replicate"), 7))
    python_counts = [reference_count(u, r, 7) for u, r in frame.iter_rows()]
    assert polars_counts.to_series().to_list() == python_counts
    assert sql_counts(300, 4, seed=7).ravel().tolist() == [
        c for (u, r), c in zip(frame.iter_rows(), python_counts) if r > 0
    ]


def _reference_interval(frame, metric, unit_ids, resamples, seed, level):
    """The percentile interval of ``metric(frame, weights)`` over the resamples."""
    values = []
    for r in range(1, resamples + 1):
        counts = np.array([reference_count(int(u), r, seed) for u in unit_ids])
        values.append(metric(frame, frame["w"].to_numpy() * counts))
    return np.quantile(values, [(1 - level) / 2, (1 + level) / 2])


REFERENCES = {
    "auc": lambda f, w: roc_auc_score(f["label"], f["score"], sample_weight=w),
    "f1": lambda f, w: f1_score(f["label"], f["score"] >= 0.5, sample_weight=w),
    "mae": lambda f, w: mean_absolute_error(f["label"], f["score"], sample_weight=w),
}


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("metric", sorted(REFERENCES))
@pytest.mark.parametrize("clustered", [False, True])
def test_percentile_interval_of_reweighted_scikit_learn(engine, metric, clustered):
    rng = np.random.default_rng(1)
    n = 120
    label = rng.normal(size=n) if metric == "mae" else (rng.random(n) < 0.4).astype(int)
    frame = pl.DataFrame(
        {
            "label": label,
            "score": np.round(rng.random(n), 1),  # ties
            "w": rng.choice([0.5, 1.0, 2.0], n),
            "user": rng.choice(["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", "ivy", "jo"], n),
        }
    )
    unit = "user" if clustered else None
    result = sm.evaluate(
        frame, [metric], weight="w", ci=0.9, ci_method="bootstrap", ci_unit=unit, resamples=40, seed=5, engine=engine
    )
    row = result.row(0, named=True)
    if clustered:
        unit_ids = frame["user"].rank("dense").to_numpy()
    else:  # each row's number in the order of its columns (label, score, weight, the used weight)
        unit_ids = np.empty(n, int)
        unit_ids[np.lexsort((frame["w"], frame["w"], frame["score"], frame["label"]))] = np.arange(1, n + 1)
    lo, hi = _reference_interval(frame, REFERENCES[metric], unit_ids, 40, 5, 0.9)
    assert row[metric] == pytest.approx(REFERENCES[metric](frame, frame["w"].to_numpy()), abs=1e-12)
    assert (row[f"{metric}_lo"], row[f"{metric}_hi"]) == pytest.approx((lo, hi), abs=1e-9)


ROWS = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", None]),
        st.sampled_from([0.1, 0.4, 0.5, 0.8, None]),
        st.sampled_from([0, 1]),
        st.sampled_from([0.5, 1.0, 3.0]),
        st.integers(0, 4),
    ),
    min_size=1,
    max_size=50,
)


@examples(25, AGREEMENT)
@given(rows=ROWS, clustered=st.booleans())
def test_engines_draw_the_same_resamples(rows, clustered):
    schema = {"s": pl.String, "score": pl.Float64, "label": pl.Int64, "w": pl.Float64, "user": pl.Int64}
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    arguments = {
        "weight": "w",
        "by": "s",
        "ci": 0.8,
        "resamples": 12,
        "seed": 2,
        "ci_unit": "user" if clustered else None,
    }
    metrics = ["auc", "f1", "mcc", "average_precision", "brier", "calibration"]
    duck = sm.evaluate(frame, metrics, ci_method="bootstrap", **arguments)
    polars.testing.assert_frame_equal(duck, sm.evaluate(frame, metrics, ci_method="bootstrap", **arguments,
                                                         engine="polars"), abs_tol=1e-9)  # fmt: skip
    assert duck.columns[:7] == ["s", "n_rows", "n_excluded", "auc", "auc_lo", "auc_hi", "f1"]


def test_the_same_seed_gives_the_same_interval_and_another_seed_another(tmp_path):
    rng = np.random.default_rng(4)
    frame = pl.DataFrame({"label": rng.integers(0, 2, 2000), "score": rng.random(2000)})
    for part in range(2):  # two files: the rows are numbered across files in their order
        frame[part * 1000 : (part + 1) * 1000].write_parquet(tmp_path / f"part-{part}.parquet")
    call = {"ci": 0.95, "ci_method": "bootstrap", "resamples": 30}
    first = sm.evaluate(tmp_path, ["auc", "f1"], **call)
    assert first.equals(sm.evaluate(tmp_path, ["auc", "f1"], **call))
    polars.testing.assert_frame_equal(first, sm.evaluate(frame, ["auc", "f1"], **call, engine="polars"), abs_tol=1e-12)
    other = sm.evaluate(tmp_path, ["auc", "f1"], **call, seed=1)
    assert other["auc"].equals(first["auc"]) and not other["auc_lo"].equals(first["auc_lo"])


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_every_seed_in_the_range_draws_its_own_resamples(engine):
    """The seeds at both ends of the range [0, 2**31 - 2] give different intervals (the
    hash reads the seed modulo 2**31 - 1: each seed of the range is its own), the same
    on both engines; just past the end is refused on both."""
    rng = np.random.default_rng(5)
    frame = pl.DataFrame({"label": rng.integers(0, 2, 300), "score": rng.random(300)})
    call = {"ci": 0.9, "ci_method": "bootstrap", "resamples": 20, "engine": engine}
    first, last = (sm.evaluate(frame, ["f1"], **call, seed=seed) for seed in (0, 2**31 - 2))
    assert not first["f1_lo"].equals(last["f1_lo"])
    polars.testing.assert_frame_equal(last, sm.evaluate(frame, ["f1"], ci=0.9, ci_method="bootstrap", resamples=20,
                                                        seed=2**31 - 2), abs_tol=1e-9)  # fmt: skip
    with pytest.raises(InvalidParameterError, match="seed must be an integer from 0 to 2147483646"):
        sm.evaluate(frame, ["f1"], **call, seed=2**31 - 1)
    with pytest.raises(InvalidParameterError, match="seed must be an integer from 0 to 2147483646"):
        sm.compare(frame.with_columns(b=pl.col("score") / 2), ["f1"], scores=("score", "b"), label="label",
                   **call, seed=2**31 - 1)  # fmt: skip


def test_bootstrap_and_analytic_widths_agree_on_large_samples():
    """Within 10% at 5,000 rows (auc, logloss, accuracy) and 500 users (gauc, the users
    resampled), with 1,000 resamples (with 200, the Monte Carlo error of the 2.5% and
    97.5% quantiles alone moves the width by about 10%)."""
    rng = np.random.default_rng(8)
    n = 5_000
    label = (rng.random(n) < 0.3).astype(int)
    frame = pl.DataFrame(
        {"label": label, "score": 1 / (1 + np.exp(-rng.normal(label, 1.0))), "user": rng.integers(0, 500, n)}
    )
    metrics = ["auc", "logloss", "accuracy"]
    analytic = sm.evaluate(frame, [*metrics, "gauc"], query="user", ci=0.95).row(0, named=True)
    resampled = sm.evaluate(frame, metrics, ci=0.95, ci_method="bootstrap", resamples=1000).row(0, named=True)
    clustered = sm.evaluate(
        frame, ["gauc"], query="user", ci=0.95, ci_method="bootstrap", ci_unit="user", resamples=1000
    )
    resampled |= clustered.row(0, named=True)
    for metric in [*metrics, "gauc"]:
        width = analytic[f"{metric}_hi"] - analytic[f"{metric}_lo"]
        assert resampled[f"{metric}_hi"] - resampled[f"{metric}_lo"] == pytest.approx(width, rel=0.1), metric


def test_undefined_replicates_give_null_bounds():
    frame = pl.DataFrame({"label": [0, 0, 0, 1], "score": [0.1, 0.2, 0.3, 0.9]})  # some resamples lack a positive
    row = sm.evaluate(frame, ["auc"], ci=0.9, ci_method="bootstrap", resamples=20).row(0, named=True)
    assert row["auc"] == 1.0 and row["auc_lo"] is None and row["auc_hi"] is None


def test_auto_takes_the_analytic_interval_where_there_is_one():
    rng = np.random.default_rng(2)
    frame = pl.DataFrame({"label": rng.integers(0, 2, 300), "score": rng.random(300)})
    auto = sm.evaluate(frame, ["auc", "average_precision"], ci=0.95, resamples=30)
    analytic = sm.evaluate(frame, ["auc"], ci=0.95)
    resampled = sm.evaluate(frame, ["average_precision"], ci=0.95, ci_method="bootstrap", resamples=30)
    # with a bootstrap in the call the rows carry weights (replicate 0's are 1), so auc and
    # DeLong take their weighted form, which divides each weight by its class's total:
    # the same numbers to rounding, where a bootstrap interval would differ by ~1e-2
    polars.testing.assert_frame_equal(
        auto.select("auc", "auc_lo", "auc_hi"), analytic.select("auc", "auc_lo", "auc_hi"), rel_tol=1e-12
    )
    assert auto.select("average_precision", "average_precision_lo", "average_precision_hi").equals(
        resampled.select("average_precision", "average_precision_lo", "average_precision_hi")
    )


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_the_most_resamples_run_and_the_statement_does_not_grow_with_them(engine):
    """10,000 resamples of 20 rows finish (each replicate is generated by the engine, not
    spelled in the statement: 10**7 once took 17 GB), and every replicate's value is a
    resample's mean: the bounds lie within the range of the labels."""
    frame = pl.DataFrame({"label": [0, 1] * 10, "score": [i / 20 for i in range(20)]})
    call = {"ci": 0.9, "ci_method": "bootstrap", "seed": 3}
    row = sm.evaluate(frame, ["label_mean"], **call, resamples=10_000, engine=engine).row(0, named=True)
    assert 0 <= row["label_mean_lo"] < 0.5 < row["label_mean_hi"] <= 1
    few, many = (sm.to_sql(["label_mean"], source="t", **call, resamples=r) for r in (10, 10_000))
    assert len(many) - len(few) < 10  # only the numbers' digits differ (the series' end, the comment's)


def recorded_bindings(monkeypatch, engine: str) -> list:
    """The bindings ``engine`` runs from now on, each appended as it runs (a statement each)."""
    import importlib

    statements, module = [], importlib.import_module(f"sqlmetrics.engines.{engine}_engine")
    engine_run = module.run
    monkeypatch.setattr(module, "run", lambda binding, *rest: statements.append(binding) or engine_run(binding, *rest))
    return statements


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_only_the_resampled_metrics_run_per_replicate(engine, monkeypatch):
    """A bootstrap serving some of a call's metrics replicates only those: the others run
    once, in a statement of their own, with their analytic intervals (before, every
    metric ran once per replicate: 5 to 14 times slower). The result is the two calls'
    apart, joined by slice, in the call's column order."""

    rng = np.random.default_rng(8)
    frame = pl.DataFrame(
        {"label": rng.integers(0, 2, 400), "score": rng.random(400).round(2), "q": rng.integers(0, 40, 400),
         "g": rng.integers(0, 3, 400)}
    )  # fmt: skip
    statements = recorded_bindings(monkeypatch, engine)
    roles = {"score": "score", "query": "q", "by": "g", "ci": 0.9, "engine": engine}
    metrics = ["average_precision", "ndcg@3", "auc", "logloss"]
    result = sm.evaluate(frame, metrics, **roles, resamples=20, seed=1)
    replicated = [binding for binding in statements if binding.bootstrap]
    assert [[call.column for call in binding.calls] for binding in replicated] == [["average_precision"]]
    analytic = sm.evaluate(frame, metrics[1:], **roles)
    resampled = sm.evaluate(frame, metrics[:1], **roles, ci_method="bootstrap", resamples=20, seed=1)
    expected = analytic.join(resampled.drop("n_rows", "n_excluded"), on="g").select(result.columns)
    polars.testing.assert_frame_equal(result, expected, abs_tol=1e-12)
    assert result.columns[3:6] == ["average_precision", "average_precision_lo", "average_precision_hi"]


def test_bad_input_error_counts_the_rows_once():
    frame = pl.DataFrame({"label": [0, 1, 2], "score": [0.1, 0.2, 0.3]})
    with pytest.raises(sm.SqlMetricsError, match="1 row is not"):
        sm.evaluate(frame, ["f1"], ci=0.9, ci_method="bootstrap", resamples=10)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"resamples": 1}, InvalidParameterError, "resamples must be an integer from 2 to 10,000"),
        ({"resamples": 10_001}, InvalidParameterError, r"resamples must be an integer from 2 to 10,000 .*got 10001"),
        ({"resamples": 10**7}, InvalidParameterError, "got 10000000"),
        ({"seed": -1}, InvalidParameterError, r"seed must be an integer from 0 to 2147483646 \(.*\), got -1"),
        # the hash reads the seed modulo p = 2**31 - 1: p itself would draw seed 0's resamples
        ({"seed": 2**31 - 1}, InvalidParameterError, "seed must be an integer from 0 to 2147483646"),
        ({"seed": 2**64}, InvalidParameterError, "got 18446744073709551616"),
        ({"seed": True}, InvalidParameterError, "seed must be an integer from 0 to 2147483646"),
        ({"seed": 1.0}, InvalidParameterError, "got 1.0"),
        ({"seed": "3"}, InvalidParameterError, "got '3'"),
        ({"ci_unit": 3}, InvalidParameterError, "ci_unit must be a column name"),
        ({"ci_unit": "nope"}, ColumnNotFoundError, "nope"),
        (
            {"ci_method": "analytic", "ci_unit": "user", "metrics": ["auc", "average_precision"]},
            InvalidParameterError,
            "ci_unit='user': no analytic interval clustered by it for average_precision: clustered intervals exist",
        ),
        (
            {"ci_method": "analytic", "metrics": ["average_precision"]},
            InvalidParameterError,
            "no analytic interval for average_precision",
        ),
        ({"metrics": ["ndcg@3"], "query": "user"}, InvalidParameterError, "no bootstrap for ndcg_at_3"),
        ({"by": "sqlmetrics_replicate"}, InvalidParameterError, "the name the bootstrap gives its own slice"),
        ({"ci_method": "jackknife"}, InvalidParameterError, "ci_method must be one of"),
        ({"ci_method": "auto", "resamples": 0}, InvalidParameterError, "resamples must be"),  # auc: analytic
        ({"ci": None, "seed": -5}, InvalidParameterError, "seed must be"),
        ({"ci_unit": Path("user")}, InvalidParameterError, "got the path 'user'"),
    ],
)
def test_bad_bootstrap_requests_are_refused(kwargs, error, message):
    frame = pl.DataFrame({"label": [0, 1, 1, 0], "score": [0.1, 0.7, 0.4, 0.3], "user": [1, 1, 2, 2]})
    frame = frame.with_columns(sqlmetrics_replicate=pl.lit(1))
    arguments = {"ci": 0.9, "ci_method": "bootstrap", **kwargs}
    with pytest.raises(error, match=message):
        sm.evaluate(frame, arguments.pop("metrics", ["auc"]), **arguments)


def test_command_line_bootstrap_writes_what_evaluate_returns(tmp_path, capsys):
    from sqlmetrics import cli

    rng = np.random.default_rng(6)
    frame = pl.DataFrame({"label": rng.integers(0, 2, 200), "score": rng.random(200), "user": rng.integers(0, 20, 200)})
    frame.write_parquet(tmp_path / "logs.parquet")
    argv = ["eval", str(tmp_path / "logs.parquet"), "-m", "auc,f1", "--ci", "0.9", "--format", "csv"]
    options = ["--ci-method", "bootstrap", "--ci-unit", "user", "--resamples", "25", "--seed", "4"]
    assert cli.main([*argv, *options]) == 0
    out, err = capsys.readouterr()
    printed = pl.read_csv(out.encode())
    # which method gave each interval, on stderr (sm.interval_methods)
    assert "intervals at 90%: auc bootstrap (percentile, 25 resamples of user, seed 4); f1 bootstrap" in err
    assert cli.main([*argv, "--ci-method", "auto"]) == 0
    assert "auc DeLong (normal); f1 delta method (normal)" in capsys.readouterr().err
    expected = sm.evaluate(frame, ["auc", "f1"], ci=0.9, ci_method="bootstrap", ci_unit="user", resamples=25, seed=4)
    assert printed.columns == expected.columns
    assert printed.row(0) == pytest.approx(expected.row(0), abs=1e-9)
    assert cli.main(["sql", "logs", "-m", "average_precision", "--ci", "0.9", "--resamples", "3"]) == 0
    assert "sqlmetrics_replicate" in capsys.readouterr().out  # auto: average_precision has no formula, the bootstrap


UNIT_SUMMED = [
    "logloss", "brier", "score_mean", "label_mean", "calibration",
    "accuracy", "precision", "recall", "specificity", "f1", sm.precision(threshold=0.3),
    sm.fbeta(beta=2.0), sm.fbeta(beta=0.5, threshold=0.3), "mcc", sm.mcc(threshold=0.3), "balanced_accuracy",
]  # fmt: skip
REGRESSION_SUMMED = ["mae", "mse", "mean_error", "mape"]


def _with_and_without_unit_sums(frame: pl.DataFrame, metrics: list[str], **keywords) -> tuple:
    """evaluate's frame from the units' sums, and from the row bootstrap (the unit sums
    turned off)."""
    summed = sm.evaluate(frame, metrics, **keywords)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api, "_summed_by_unit", lambda binding, engine: ())
        return summed, sm.evaluate(frame, metrics, **keywords)


def _assert_same(summed: pl.DataFrame, resampled: pl.DataFrame) -> None:
    assert summed.columns == resampled.columns
    for column in summed.columns:
        for got, want in zip(summed[column].to_list(), resampled[column].to_list()):
            assert (got is None) == (want is None), column
            if isinstance(got, float):
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), column
            else:
                assert got == want, column


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(frame=impressions(max_rows=30, weighted=None), seed=st.integers(0, 1000))
@examples(25)
def test_a_bootstrap_by_unit_of_means_from_unit_sums_is_the_row_bootstraps(engine, frame, seed):
    """The means over rows, calibration and the shares of the confusion counts resampled
    by unit from each unit's sums (R × units rows) give the row bootstrap's replicates, hence its bounds, to float
    rounding: the same unit numbers and counts (weights, slices; a NULL unit is refused:
    test_clustered's test_a_null_unit_is_refused_whatever_the_interval, so it is filled in)."""
    keywords = dict(label="label", score="score", weight="weight", by="slice", ci=0.9, ci_method="bootstrap",
                    ci_unit="query", resamples=20, seed=seed, engine=engine)  # fmt: skip
    frame = frame.with_columns(pl.col("query").fill_null(-1))
    _assert_same(*_with_and_without_unit_sums(frame, UNIT_SUMMED, **keywords))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(frame=regression_rows(max_rows=30), seed=st.integers(0, 1000))
@examples(25)
def test_a_bootstrap_by_unit_of_regression_means_from_unit_sums_is_the_row_bootstraps(engine, frame, seed):
    """The regression errors' means (mape over its nonzero targets) likewise, with the
    analytic rmse beside them in a statement of its own (a NULL unit filled in, as above)."""
    frame = frame.with_columns(pl.col("slice").fill_null("none"))
    keywords = dict(label="label", score="score", weight="weight", ci=0.9, ci_method="auto", ci_unit="slice",
                    resamples=20, seed=seed, engine=engine)  # fmt: skip
    metrics = [*REGRESSION_SUMMED, "median_absolute_error"]  # the median: no analytic interval, resampled by row
    _assert_same(*_with_and_without_unit_sums(frame, metrics, **{**keywords, "ci_method": "bootstrap"}))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_bootstrap_of_no_rows_without_slices_gives_its_one_row(engine):
    """An empty source without slices: one row, no row used, NULL values and bounds, as
    without an interval (the percentiles of no replicate row were concatenated to no
    point row, and polars refused frames of different heights)."""
    empty = pl.DataFrame(schema={"unit": pl.String, "label": pl.Float64, "score": pl.Float64})
    keywords = dict(label="label", score="score", ci=0.9, ci_method="bootstrap", ci_unit="unit", resamples=5)
    result = sm.evaluate(empty, ["median_absolute_error", "mae"], engine=engine, **keywords)
    assert result.rows() == [(0, 0, None, None, None, None, None, None)]
