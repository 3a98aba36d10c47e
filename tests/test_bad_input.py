"""Bad input gets a clear error; degenerate but valid input gets defined (NULL) results."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import sqlmetrics as sm
import sqlmetrics.polars as smp
from sqlmetrics import cli

from strategies import role_keywords

FRAME = pl.DataFrame(
    {
        "click": [1, 0, 1, 0, 1, 0],
        "pctr": [0.9, 0.2, 0.6, 0.4, 0.8, 0.1],
        "w": [1.0, 2.0, 1.0, 1.0, 0.5, 1.0],
        "user": [1, 1, 2, 2, 3, 3],
        "day": ["d1", "d1", "d1", "d2", "d2", "d2"],
    }
)
ROLES = {"label": "click", "score": "pctr"}


def evaluate(frame, metrics, engine, **kwargs):
    return sm.evaluate(frame, metrics, engine=engine, **{**ROLES, **kwargs})


def test_missing_column_is_named_with_the_columns_that_exist(engine):
    with pytest.raises(sm.ColumnNotFoundError, match=r"score column 'p_ctr' not found; the source has: click, pctr"):
        evaluate(FRAME, ["auc"], engine, score="p_ctr")
    with pytest.raises(sm.ColumnNotFoundError, match=r"by column 'country' not found"):
        evaluate(FRAME, ["auc"], engine, by=["day", "country"])


@pytest.mark.parametrize(("labels", "example"), [([1, 0, 2, 0, 3, 2], "2"), ([1.0, 0.0, 2.5, 0.0, 3.0, 2.5], "2.5")])
def test_label_outside_0_1_gives_count_and_example(engine, labels, example):
    # the smallest bad label is the example; an integral one is written without a
    # fraction (2, not 2.0: the rows carry labels as doubles), any other as a double
    frame = FRAME.with_columns(click=pl.Series(labels))
    message = r"label column 'click' must be 0 or 1 \(or boolean\) \(for auc, f1\): 3 rows are not, e\.g\. "
    with pytest.raises(sm.InvalidInputError, match=message + re.escape(example) + "$"):
        evaluate(frame, ["auc", "f1"], engine)


@pytest.mark.parametrize(("bad", "counted"), [(1, "1 row is not"), (2, "2 rows are not")])
def test_a_rules_count_agrees_in_number(engine, bad, counted):
    # the first `bad` labels set to 2: the count and what follows it agree ("1 rows are
    # not" before), in the DuckDB statement's error() as in the polars engine's message
    frame = FRAME.with_columns(click=pl.Series([2] * bad + FRAME["click"].to_list()[bad:]))
    message = rf"label column 'click' must be 0 or 1 \(or boolean\) \(for auc\): {counted}, e\.g\. 2$"
    with pytest.raises(sm.InvalidInputError, match=message):
        evaluate(frame, ["auc"], engine)


def test_nan_score_is_an_error(engine):
    frame = FRAME.with_columns(pctr=pl.Series([0.9, float("nan"), 0.6, 0.4, float("nan"), 0.1]))
    with pytest.raises(sm.InvalidInputError, match=r"score column 'pctr' must not be NaN: 2 rows are not"):
        evaluate(frame, ["auc"], engine)


def test_probability_metrics_need_scores_in_0_1_but_auc_does_not(engine):
    logits = FRAME.with_columns(pctr=pl.Series([2.2, -1.4, 0.4, -0.4, 1.4, -2.2]))
    assert evaluate(logits, ["auc"], engine)["auc"].item() == 1.0
    message = (
        r"score column 'pctr' must be a probability in \[0, 1\] \(for logloss, brier\): 5 rows are not, e\.g\. -2\.2"
    )
    with pytest.raises(sm.InvalidInputError, match=message):
        evaluate(logits, ["auc", "logloss", "brier"], engine)


def test_infinite_score_is_an_error_where_a_mean_needs_it(engine):
    frame = FRAME.with_columns(pctr=pl.Series([float("inf"), 0.2, 0.6, 0.4, 0.8, 0.1]))
    assert evaluate(frame, ["auc"], engine)["auc"].item() == 1.0
    message = r"score column 'pctr' must be finite \(for score_mean\): 1 row is not"
    with pytest.raises(sm.InvalidInputError, match=message):
        evaluate(frame, ["score_mean"], engine)


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_negative_or_non_finite_weight_is_an_error(bad, engine):
    frame = FRAME.with_columns(w=pl.Series([1.0, bad, 1.0, 1.0, 1.0, 1.0]))
    with pytest.raises(sm.InvalidInputError, match=r"weight column 'w' must be finite and >= 0: 1 row is not"):
        evaluate(frame, ["auc"], engine, weight="w")


def test_string_label_is_a_type_error(engine):
    with pytest.raises(sm.SqlMetricsError, match=r"label column 'day' has type"):
        evaluate(FRAME, ["auc"], engine, label="day")


def test_missing_file_and_empty_glob_name_the_path(tmp_path, engine):
    with pytest.raises(sm.SourceError, match=re.escape(f"file not found: '{tmp_path}/nope.parquet'")):
        sm.evaluate(tmp_path / "nope.parquet", ["auc"], engine=engine)
    with pytest.raises(sm.SourceError, match=re.escape(f"no files match '{tmp_path}/*.parquet'")):
        sm.evaluate(f"{tmp_path}/*.parquet", ["auc"], engine=engine)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda path: evaluate(FRAME, ["auc"], "duckdb", label=path), "label must be a column name (a string), got "),
        (
            lambda path: evaluate(FRAME, ["auc"], "duckdb", by=path),
            "by must be a column name or a list of column names, got ",
        ),
        (
            lambda path: evaluate(FRAME, path, "duckdb"),
            "metrics must be a metric name, a metric call or a list of them, got ",
        ),
        (lambda path: sm.long_scores(FRAME, row_id=path), "long_scores: row_id must be a column name, got "),
        (
            lambda path: evaluate(FRAME, ["auc"], "duckdb", label="day", class_scores={"d1": path, "d2": "pctr"}),
            "class_scores: the score column of class 'd1' must be a name, got ",
        ),
        (
            lambda path: evaluate(path, ["auc"], "postgres", con=object()),
            "engine='postgres' reads a table or view of the connection: pass its name, not ",
        ),
    ],
)
def test_a_path_in_a_message_is_written_as_a_path_not_a_python_repr(call, message):
    with pytest.raises(sm.SqlMetricsError) as raised:
        call(Path("logs/a.parquet"))
    assert str(raised.value) == message + "the path 'logs/a.parquet'"


def test_unknown_table_in_connection():
    with pytest.raises(sm.SourceError, match="no table or view named 'impressions'"):
        sm.evaluate("impressions", ["auc"], con=duckdb.connect())


def test_empty_source_gives_one_row_of_nulls(engine):
    # multi-class metrics read a prediction column and share their columns' names with the
    # binary metrics: tests/test_multiclass_reference.py checks them on an empty source
    names = [name for name, spec in sm.registry().items() if spec.family != "multiclass"]
    metrics = [sm.metric(name, k=3) if name.endswith("@k") else name for name in names]
    # the roles the families add (the off-policy propensities, ...), each a column of its own
    roles = role_keywords()
    empty = FRAME.clear().with_columns(pl.lit(None, pl.Float64).alias(column) for column in roles)
    result = evaluate(empty, metrics, engine, query="user", **roles)
    assert result.height == 1
    counts = [c for c in result.columns if c.endswith(("_groups", "_skipped", "_queries"))]
    assert result.row(0, named=True) == {
        "n_rows": 0,
        "n_excluded": 0,
        **{c: None for c in result.columns[2:]},
        **dict.fromkeys(counts, 0),
    }


def test_slice_whose_rows_are_all_excluded_gives_nulls(engine):
    frame = FRAME.with_columns(pctr=pl.when(pl.col("day") == "d2").then(None).otherwise(pl.col("pctr")))
    result = evaluate(frame, ["auc", "logloss", "gauc"], engine, query="user", by="day")
    assert result.filter(day="d2").row(0) == ("d2", 0, 3, None, None, None, 0, 0)
    assert result.filter(day="d1")["n_rows"].item() == 3


def test_one_class_slices_are_null_where_undefined(engine):
    one_class = FRAME.with_columns(click=pl.lit(1))
    result = evaluate(one_class, ["auc", "average_precision", "gauc", "mcc", "recall"], engine, query="user")
    assert result.select("auc", "average_precision", "gauc", "mcc").row(0) == (None, None, None, None)
    assert result["gauc_skipped"].item() == 3
    assert result["recall"].item() == 0.5  # scores 0.9, 0.6, 0.8 of six are >= 0.5


def test_nothing_predicted_positive(engine):
    result = evaluate(FRAME, [sm.precision(threshold=0.95), sm.mcc(threshold=0.95), sm.recall(threshold=0.95)], engine)
    assert result.row(0)[2:] == (None, None, 0.0)


def test_hostile_column_names_are_just_names(engine):
    hostile = 'a"; DROP TABLE t; --'
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT 1 AS x")
    frame = FRAME.rename({"click": hostile, "day": "it's"})
    result = sm.evaluate(
        frame, ["auc"], label=hostile, score="pctr", by="it's", engine=engine, con=con if engine == "duckdb" else None
    )
    assert result.columns == ["it's", "n_rows", "n_excluded", "auc"]
    assert con.sql("SELECT x FROM t").fetchall() == [(1,)]
    sql = sm.to_sql(["auc"], source=frame, label=hostile, score="pctr", by="it's")
    assert '"a""; DROP TABLE t; --"' in sql


# Two columns whose names differ only in the indentation after a newline: indenting the
# composed statement must not turn one name into the other (it once read "y\n  z" for
# label="y\nz"). The labels are opposite, so reading the wrong one flips auc to 1 - auc.
NEWLINE_NAMES = {"click": "y\nz", "day": "d\r\n x", "user": "u\n\tv"}


@pytest.mark.parametrize("ci", [None, 0.95])
def test_names_holding_newlines_stay_names(engine, ci):
    frame = FRAME.rename(NEWLINE_NAMES).with_columns((1 - pl.col("y\nz")).alias("y\n  z"))
    metrics = ["auc", "gauc", "logloss", "ndcg@2"]
    roles = {"label": "y\nz", "score": "pctr", "query": "u\n\tv", "by": "d\r\n x", "ci": ci}
    result = sm.evaluate(frame, metrics, engine=engine, **roles)
    plain = sm.evaluate(FRAME, metrics, engine=engine, label="click", score="pctr", query="user", by="day", ci=ci)
    assert result.columns[0] == "d\r\n x"
    assert result.rename({"d\r\n x": "day"}).equals(plain)


def test_table_in_a_connection_with_a_quote_in_its_name():
    con = duckdb.connect()
    con.execute('CREATE TABLE "imp""ressions" AS SELECT * FROM FRAME')
    result = sm.evaluate('imp"ressions', ["auc"], **ROLES, con=con)
    assert result["auc"].item() == evaluate(FRAME, ["auc"], "duckdb")["auc"].item()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: sm.fbeta(beta=0), r"fbeta: parameter 'beta' must be a finite number > 0, got 0"),
        (
            lambda: sm.precision(threshold=float("nan")),
            r"precision: parameter 'threshold' must be a finite number, got nan",
        ),
        (
            lambda: sm.precision(threshold="high"),
            r"precision: parameter 'threshold' must be a finite number, got 'high'",
        ),
        (
            lambda: sm.gauc(weighting="users"),
            r"gauc: parameter 'weighting' must be one of 'impressions', 'positives', 'uniform', got 'users'",
        ),
        (lambda: sm.auc(threshold=0.3), r"auc: unknown parameter 'threshold' \(parameters: none\)"),
        (lambda: sm.metric("auc@10"), r"auc: unknown parameter 'k'"),
        (lambda: sm.metric("precision@x"), r"precision: parameter 'k' must be an integer >= 1, got 'x'"),
        (lambda: sm.metric("fbeta:beta=2", beta=3), r"fbeta: parameter 'beta' given twice"),
        (lambda: sm.metric("fbeta:beta"), r"write parameters as fbeta:PARAM=VALUE, got 'beta'"),
        (lambda: sm.metric("precision", averag="macro"), r"precision: unknown parameter 'averag'"),
    ],
)
def test_invalid_parameters_name_metric_rule_and_value(make, message):
    with pytest.raises(sm.InvalidParameterError, match=message):
        make()


@pytest.mark.parametrize(
    "metric, message",
    [
        # Python's int() and float() read other scripts' digits and underscores: '١٠' and
        # '1_0' would be k = 10, a typo another number; only ASCII digits are numerals
        ("ndcg@١٠", r"ndcg: parameter 'k' must be an integer >= 1, got '١٠'"),
        ("ndcg@1_0", r"ndcg: parameter 'k' must be an integer >= 1, got '1_0'"),
        ("hit_rate@٣", r"hit_rate: parameter 'k' must be an integer >= 1, got '٣'"),
        ("ndcg:k=١٠", r"ndcg: parameter 'k' must be an integer >= 1, got '١٠'"),
        ("fbeta:beta=1_0", r"fbeta: parameter 'beta' must be a finite number > 0, got '1_0'"),
        ("precision:threshold=٠.٣", r"precision: parameter 'threshold' must be a finite number, got '٠.٣'"),
    ],
)
def test_a_value_of_other_digits_than_ascii_is_refused(engine, metric, message):
    with pytest.raises(sm.InvalidParameterError, match=message):
        evaluate(FRAME, [metric], engine, query="user")


def test_a_parameter_only_the_multiclass_metric_has_selects_it():
    assert sm.metric("precision", average="macro") == sm.multiclass_precision(average="macro")
    assert sm.metric("f1", average="weighted") == sm.multiclass_f1(average="weighted")
    assert sm.metric("precision", threshold=0.3) == sm.precision(threshold=0.3)  # the binary metric's own


def test_a_mix_of_binary_and_multiclass_parameters_names_the_other_metric():
    note = "'average' is multiclass_precision's (parameters: average): a call takes the parameters of one of them"
    with pytest.raises(sm.InvalidParameterError, match=re.escape(f"(parameters: threshold); {note}")):
        sm.metric("precision", average="macro", threshold=0.3)
    with pytest.raises(sm.InvalidParameterError, match=re.escape("'threshold' is f1's (parameters: threshold)")):
        sm.metric("multiclass_f1", threshold=0.3)
    # a parameter neither has is named first, without the note
    with pytest.raises(sm.InvalidParameterError, match=r"unknown parameter 'bogus' \(parameters: threshold\)$"):
        sm.metric("precision", average="macro", bogus=1)


def test_spec_strings_work_in_evaluate_as_on_the_command_line(engine):
    specs = ["fbeta:beta=2", "precision:threshold=0.3", "ndcg@2:gain=linear"]
    calls = [sm.fbeta(beta=2), sm.precision(threshold=0.3), sm.metric("ndcg@2", gain="linear")]
    by_spec = evaluate(FRAME, specs, engine, query="user")
    assert by_spec.columns[2:] == [c for call in calls for c in call.columns]
    assert by_spec.equals(evaluate(FRAME, calls, engine, query="user"))


def test_unknown_metric_suggests_the_closest():
    with pytest.raises(sm.UnknownMetricError, match=r"unknown metric 'acu'; did you mean 'auc'"):
        sm.evaluate(FRAME, ["acu"], **ROLES)


def test_gauc_without_query_says_what_to_pass():
    with pytest.raises(sm.InvalidParameterError, match=r"gauc averages over queries: pass query="):
        sm.evaluate(FRAME, ["gauc"], **ROLES)


def test_duplicate_result_columns_and_unknown_engine():
    with pytest.raises(sm.InvalidParameterError, match="both produce the column 'auc'"):
        sm.evaluate(FRAME, ["auc", sm.auc()], **ROLES)
    engines = "'duckdb', 'polars', 'spark', 'postgres', 'clickhouse'"
    with pytest.raises(sm.InvalidParameterError, match=f"engine must be one of {engines}, got 'hive'"):
        sm.evaluate(FRAME, ["auc"], **ROLES, engine="hive")


def test_warehouse_engines_say_what_to_pass():
    with pytest.raises(sm.InvalidParameterError, match="pass spark=<SparkSession>"):
        sm.evaluate(FRAME, ["auc"], **ROLES, engine="spark")
    with pytest.raises(sm.InvalidParameterError, match=r"pass con=psycopg.connect\(...\)"):
        sm.evaluate("impressions", ["auc"], **ROLES, engine="postgres")
    with pytest.raises(sm.InvalidParameterError, match=r"runs on a chdb session or a clickhouse-connect client"):
        sm.evaluate(FRAME, ["auc"], **ROLES, engine="clickhouse", con=object())


@pytest.mark.parametrize(
    ("metrics", "kwargs", "message"),
    [
        (None, {}, "metrics must be a metric name, a metric call or a list of them, got None"),
        ([1], {}, r"metrics must be names \(e\.g\. 'auc'\) or metric calls \(e\.g\. sm\.fbeta\(beta=2\)\), got 1"),
        (["auc", None], {}, r"metrics must be names .* got None"),
        ([], {}, "no metrics given"),
        (["auc"], {"label": None}, r"label=None: pass label=<the label column>"),
        (["auc"], {"weight": 1}, r"weight must be a column name \(a string\), got 1"),
        (["auc"], {"by": 1}, "by must be a column name or a list of column names, got 1"),
        (["auc"], {"by": ["day", None]}, r"by must be a column name or a list of column names, got \['day', None\]"),
    ],
)
def test_missing_or_malformed_arguments_are_parameter_errors(engine, metrics, kwargs, message):
    with pytest.raises(sm.InvalidParameterError, match=message):
        evaluate(FRAME, metrics, engine, **kwargs)


@pytest.mark.parametrize(("role", "column"), [("label", "click"), ("score", "pctr"), ("weight", "w"), ("by", "user")])
def test_128_bit_integer_columns_are_refused_by_name(engine, role, column):
    frame = FRAME.with_columns(pl.col(column).cast(pl.Int128))
    kwargs = {"weight": "w", role: column}
    message = rf"{role} column '{column}' holds 128-bit integers, which not every engine reads"
    with pytest.raises(sm.SqlMetricsError, match=message):
        evaluate(frame, ["auc"], engine, **kwargs)


def test_128_bit_integer_query_is_refused_by_name(engine):
    with pytest.raises(sm.SqlMetricsError, match=r"query column 'user' holds 128-bit integers"):
        evaluate(FRAME.with_columns(pl.col("user").cast(pl.Int128)), ["gauc"], engine, query="user")


def test_duration_slice_is_refused_by_name(engine):
    frame = FRAME.with_columns(wait=pl.duration(seconds=pl.col("user")))
    with pytest.raises(sm.SqlMetricsError, match=r"by column 'wait' holds durations, which cannot be a slice"):
        evaluate(frame, ["auc"], engine, by="wait")


REGRESSION = ["mse", "rmse", "r2", "mae", "mape", "mean_error", "max_error", "median_absolute_error"]


def test_regression_sums_that_overflow_the_float_range_are_an_error_not_nan(engine):
    # finite targets near the float limit: (1.1e308 - 1e308)^2 and the squared deviations of
    # the target overflow to inf, r2 would be inf/inf = nan
    frame = pl.DataFrame({"y": [1e308, -1e308, 1.5e308], "p": [1.1e308, -1e308, 1.4e308]})
    message = r"^mse, rmse: an intermediate sum overflowed the float range \(\|value\| > 1\.8e308\)"
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.evaluate(frame, REGRESSION, label="y", score="p", engine=engine)
    # r2 scales its sums, so it is exact there (sklearn's r2_score gives nan)
    r2 = sm.evaluate(frame, ["r2"], label="y", score="p", engine=engine)["r2"].item()
    assert r2 == pytest.approx(exact_r2(frame["y"], frame["p"]), rel=1e-12)


def exact_r2(targets, predictions, weights=None) -> float:
    """R² in exact rational arithmetic over the given doubles (no underflow, no overflow)."""
    y, p = [Fraction(v) for v in targets], [Fraction(v) for v in predictions]
    w = [Fraction(v) for v in weights] if weights is not None else [Fraction(1)] * len(y)
    mean = sum(wi * yi for wi, yi in zip(w, y)) / sum(w)
    errors = sum(wi * (yi - pi) ** 2 for wi, yi, pi in zip(w, y, p))
    return float(1 - errors / sum(wi * (yi - mean) ** 2 for wi, yi in zip(w, y)))


@settings(max_examples=30)
@given(
    rows=st.lists(
        st.tuples(st.integers(-1000, 1000), st.integers(-1000, 1000), st.integers(1, 5)), min_size=2, max_size=12
    ).filter(lambda rows: len({y for y, _, _ in rows}) > 1),
    exponent=st.sampled_from([-320, -300, -160, -100, 0, 100, 160, 300, 305]),
)
def test_r2_is_exact_whatever_the_scale_of_target_and_prediction(rows, exponent):
    # R² does not change when target and prediction are multiplied by the same constant;
    # sklearn's r2_score loses every digit below 1e-154 (squares underflow) and returns
    # nan above 1e154. The reference is exact over the scaled doubles themselves.
    scale = 10.0**exponent
    frame = pl.DataFrame(
        {"y": [y * scale for y, _, _ in rows], "p": [p * scale for _, p, _ in rows], "w": [w for *_, w in rows]}
    )
    expected = exact_r2(frame["y"], frame["p"], frame["w"])
    for engine in ("duckdb", "polars"):
        r2 = sm.evaluate(frame, ["r2"], label="y", score="p", weight="w", engine=engine)["r2"].item()
        assert r2 == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert frame.select(smp.r2("p", "y", "w")).item() == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_r2_beyond_the_float_range_names_what_happened(engine):
    # targets near 5e-324 against predictions near 0.1: Σ e² / Σ (y - ȳ)² is about 1e645
    frame = pl.DataFrame({"y": [5e-324, 1e-323, 0.0, 2e-323], "p": [0.1, 0.2, 0.3, 0.4]})
    with pytest.raises(sm.InvalidInputError, match=r"^r2: R² = .* is below −1\.8e308 and cannot be represented"):
        sm.evaluate(frame, ["r2"], label="y", score="p", engine=engine)


def test_regression_near_the_float_limit_is_finite_where_no_sum_overflows(engine):
    # the same targets, each predicted exactly: every residual is 0, so mae = mse =
    # max_error = mean_error = 0, and r2 = 1 - 0 / SST = 1 (SST itself overflows, but a
    # perfect fit needs no division by it)
    frame = pl.DataFrame({"y": [1e308, -1e308, 1.5e308], "p": [1e308, -1e308, 1.5e308]})
    row = sm.evaluate(frame, ["mae", "mse", "max_error", "mean_error", "r2"], label="y", score="p", engine=engine).row(
        0
    )
    assert row == (3, 0, 0.0, 0.0, 0.0, 0.0, 1.0)


def test_time_zone_aware_slices_keep_their_zone(engine):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    berlin = ZoneInfo("Europe/Berlin")
    times = [datetime(2024, 1, 1, 12), None, datetime(2024, 6, 1, 12), datetime(2024, 1, 1, 12), None, None]
    frame = FRAME.with_columns(at=pl.Series(times).dt.replace_time_zone("Europe/Berlin"))
    result = evaluate(frame, ["auc"], engine, by="at")
    assert result.schema["at"] == pl.Datetime("us", "Europe/Berlin")
    # slices sorted, NULL last; winter noon is 11:00 UTC, summer noon 10:00 UTC: the zone is kept, not UTC
    assert result["at"].to_list() == [
        datetime(2024, 1, 1, 12, tzinfo=berlin),
        datetime(2024, 6, 1, 12, tzinfo=berlin),
        None,
    ]
    assert result["n_rows"].to_list() == [2, 1, 3]


# --- names and types no engine reads as they are --------------------------------------


@pytest.mark.parametrize("kind", ["polars", "lazy", "arrow"])
def test_a_nul_in_a_column_name(engine, kind):
    """DuckDB reads a frame through Arrow's C interface, whose names end at a NUL: polars
    panicked and pyarrow's names were cut short (``y\\x00z`` read as ``y``, another column).
    A NUL in an unread column is left out; in a bound one it is refused on DuckDB and read
    by the polars engine."""
    frame = FRAME.with_columns(pl.col("click").alias("c\x00lick"), pl.lit(0).alias("click\x00"))
    arrow = pa.table({name: frame[name].to_list() for name in frame.columns})  # polars' to_arrow panics on them
    source = {"polars": frame, "lazy": frame.lazy(), "arrow": arrow}[kind]
    expected = evaluate(FRAME, ["auc"], engine)
    assert_frame_equal(evaluate(source, ["auc"], engine), expected)  # the NUL columns are not read
    if engine == "polars":
        assert_frame_equal(evaluate(source, ["auc"], engine, label="c\x00lick"), expected)
    else:
        message = r"column 'c\\x00lick' has a NUL character in its name, which DuckDB cannot read: rename it"
        with pytest.raises(sm.SqlMetricsError, match=message):
            evaluate(source, ["auc"], engine, label="c\x00lick")


@pytest.mark.parametrize(
    ("role", "values", "polars_type", "duckdb_type"),
    [
        ("score", [[0.9], [0.2], [0.6], [0.4], [0.8], [0.1]], "List(Float64)", "DOUBLE[]"),
        (
            "score",
            [{"p": 0.9}, {"p": 0.2}, {"p": 0.6}, {"p": 0.4}, {"p": 0.8}, {"p": 0.1}],
            "Struct({'p': Float64})",
            "STRUCT(p DOUBLE)",
        ),
        ("label", [[1], [0], [1], [0], [1], [0]], "List(Int64)", "BIGINT[]"),
        ("weight", [[1.0]] * 6, "List(Float64)", "DOUBLE[]"),
    ],
    ids=["list_score", "struct_score", "list_label", "list_weight"],
)
def test_a_nested_score_label_or_weight_is_refused_by_name(engine, role, values, polars_type, duckdb_type, tmp_path):
    column = {"score": "pctr", "label": "click", "weight": "w"}[role]
    frame = FRAME.with_columns(pl.Series(column, values))
    frame.write_parquet(tmp_path / "nested.parquet")
    file_type = polars_type if engine == "polars" else duckdb_type  # a frame's type is polars' on both
    for source, kind in ((frame, polars_type), (tmp_path / "nested.parquet", file_type)):
        message = f"{role} column '{column}' has type {re.escape(kind)}; expected a number or boolean"
        with pytest.raises(sm.SqlMetricsError, match=message):
            evaluate(source, ["auc"], engine, weight="w")


def test_a_nested_class_is_refused_by_name(engine):
    frame = FRAME.with_columns(pl.Series("species", [["a"], ["b"], ["a"], ["b"], ["a"], ["b"]]))
    with pytest.raises(sm.SqlMetricsError, match=r"label column 'species' has type .*; a class must be a number"):
        sm.evaluate(frame, ["accuracy"], label="species", prediction="species", engine=engine)


def test_the_cli_refuses_a_nested_score_in_one_line(tmp_path, capsys):
    FRAME.with_columns(pl.col("pctr").map_elements(lambda s: [s], return_dtype=pl.List(pl.Float64))).write_parquet(
        tmp_path / "nested.parquet"
    )
    for engine, kind in (("duckdb", "DOUBLE[]"), ("polars", "List(Float64)")):
        code = cli.main(
            [
                "eval",
                str(tmp_path / "nested.parquet"),
                "-m",
                "auc",
                "--label",
                "click",
                "--score",
                "pctr",
                "--engine",
                engine,
            ]
        )
        assert code == 1
        assert capsys.readouterr().err == (
            f"sqlmetrics: error: score column 'pctr' has type {kind}; expected a number or boolean\n"
        )


def test_weights_whose_sum_overflows_are_refused(engine):
    # each weight is finite, but two of 1e308 in slice "a" sum beyond the float range
    # (1.8e308): every weighted metric divides by that sum, so it must not be inf
    frame = pl.DataFrame(
        {"y": [0, 1, 0, 1], "s": [0.1, 0.2, 0.3, 0.4], "w": [1e308, 1e308, 1.0, 1.0], "g": ["a", "a", "b", "b"]}
    )
    with pytest.raises(sm.InvalidInputError, match=r"column 'w': the weights of a slice sum to more than 1e\+308"):
        sm.evaluate(frame, ["auc", "logloss"], label="y", score="s", weight="w", by="g", engine=engine)


def test_fbeta_with_a_huge_or_tiny_beta(engine):
    # tp = 0 (nothing scores >= 0.5 among the positives): F_beta = 0 for every beta, not NaN;
    # beta 1e200 (beta² overflows) is recall, beta 1e-200 (beta² underflows) is precision
    frame = pl.DataFrame({"y": [1, 1, 0, 0], "s": [0.1, 0.2, 0.6, 0.3]})
    for beta in (1e200, 1e-200, 1e20):
        result = sm.evaluate(frame, [sm.metric("fbeta", beta=beta)], label="y", score="s", engine=engine)
        assert result[:, -1].item() == 0.0  # the metric's column, named after its beta
    frame = pl.DataFrame({"y": [1, 1, 0, 0], "s": [0.9, 0.2, 0.6, 0.3]})  # tp 1, fn 1, fp 1
    recall = sm.evaluate(frame, [sm.metric("fbeta", beta=1e200)], label="y", score="s", engine=engine)
    precision = sm.evaluate(frame, [sm.metric("fbeta", beta=1e-200)], label="y", score="s", engine=engine)
    assert (recall[:, -1].item(), precision[:, -1].item()) == (0.5, 0.5)
