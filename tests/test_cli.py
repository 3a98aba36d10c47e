"""The ``sqlmetrics`` command: every output format, slices, parameters, listing, SQL, errors.

Numbers are never hard-coded: each command's result is compared with
``sqlmetrics.evaluate`` on the same Parquet file.
"""

from __future__ import annotations

import io
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import sqlmetrics as sm
from sqlmetrics import cli
from sqlmetrics.cli import messages
from sqlmetrics.registry import parse_metric, parse_value
from sqlmetrics.running import progress

BINDING = ["--label", "click", "--score", "pctr", "--query", "user_id"]
KWARGS = {"label": "click", "score": "pctr", "query": "user_id"}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small impressions log: 400 rows, tied scores, two dates, two countries, weights."""
    rng = random.Random(7)
    rows = []
    for _ in range(400):
        click = int(rng.random() < 0.35)
        rows.append(
            {
                "click": click,
                "pctr": round(min(0.99, 0.25 * click + 0.75 * rng.random()), 2),
                "user_id": rng.randrange(12),
                "date": rng.choice(["2024-05-01", "2024-05-02"]),
                "country": rng.choice(["de", "fr"]),
                "w": rng.uniform(0.5, 2.0),
            }
        )
    path = tmp_path_factory.mktemp("cli") / "logs.parquet"
    pl.DataFrame(rows).write_parquet(path)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_user_error(code: int, err: str, status: int, *fragments: str) -> None:
    assert code == status
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("sqlmetrics: error: ")
    for fragment in fragments:
        assert fragment in lines[0]


# --- eval: output formats ------------------------------------------------------------


def test_eval_csv_matches_evaluate(capsys, logs):
    code, out, err = run(capsys, "eval", logs, "--metrics", "auc,gauc,logloss", *BINDING, "--format", "csv")
    assert (code, err) == (0, "")
    expected = sm.evaluate(logs, ["auc", "gauc", "logloss"], **KWARGS)
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False)


def test_eval_json_is_an_array_of_rows(capsys, logs):
    code, out, _ = run(capsys, "eval", logs, "-m", "auc,brier", *BINDING, "--weight", "w", "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert isinstance(rows, list)
    expected = sm.evaluate(logs, ["auc", "brier"], weight="w", **KWARGS)
    assert_frame_equal(pl.DataFrame(rows), expected, check_dtypes=False)


def test_eval_parquet_output(capsys, logs, tmp_path):
    target = tmp_path / "result.parquet"
    code, out, _ = run(capsys, "eval", logs, "-m", "auc,gauc", *BINDING, "--format", "parquet", "--output", target)
    assert (code, out) == (0, "")
    assert_frame_equal(pl.read_parquet(target), sm.evaluate(logs, ["auc", "gauc"], **KWARGS))


def test_eval_output_file_leaves_stdout_empty(capsys, logs, tmp_path):
    target = tmp_path / "result.csv"
    code, out, _ = run(capsys, "eval", logs, "-m", "auc", *BINDING, "--format", "csv", "-o", target)
    assert (code, out) == (0, "")
    assert_frame_equal(pl.read_csv(target), sm.evaluate(logs, "auc", **KWARGS), check_dtypes=False)


@pytest.mark.parametrize("suffix", [".csv", ".json", ".parquet", ".pq", ".CSV"])
def test_eval_output_format_follows_the_extension(capsys, logs, tmp_path, suffix):
    target = tmp_path / f"result{suffix}"
    code, out, err = run(capsys, "eval", logs, "-m", "auc,gauc", *BINDING, "-o", target)
    assert (code, out, err) == (0, "", "")
    expected = sm.evaluate(logs, ["auc", "gauc"], **KWARGS)
    read = {".csv": pl.read_csv, ".json": pl.read_json}.get(suffix.lower(), pl.read_parquet)
    assert_frame_equal(read(target), expected, check_dtypes=False)


def test_eval_output_of_another_extension_is_a_table(capsys, logs, tmp_path):
    target = tmp_path / "result.txt"
    code, out, _ = run(capsys, "eval", logs, "-m", "auc", *BINDING, "-o", target)
    assert (code, out) == (0, "")
    assert "n_rows" in target.read_text() and "┆" in target.read_text()


def test_eval_format_contradicting_the_extension_is_refused(capsys, logs, tmp_path):
    target = tmp_path / "result.parquet"
    code, out, err = run(capsys, "eval", logs, "-m", "auc", *BINDING, "--format", "csv", "-o", target)
    assert_user_error(code, err, 2, "--format csv contradicts --output", "a parquet file")
    assert out == "" and not target.exists()


def test_eval_table_shows_every_column_and_row(capsys, logs):
    metrics = ["auc", "gauc", "logloss", "brier", "accuracy", "precision", "recall", "f1", "mcc", "label_mean"]
    code, out, _ = run(capsys, "eval", logs, "-m", ",".join(metrics), *BINDING, "--by", "date,country")
    assert code == 0
    expected = sm.evaluate(logs, metrics, by=["date", "country"], **KWARGS)
    assert "…" not in out  # nothing elided
    assert "shape:" not in out and "f64" not in out  # no shape, no dtypes
    header = next(line for line in out.splitlines() if "n_rows" in line)
    assert [cell.strip() for cell in header.strip("│ ").split("┆")] == expected.columns
    for row in expected.iter_rows():
        line = next(line for line in out.splitlines() if f" {row[0]} " in line and f" {row[1]} " in line)
        cells = [cell.strip() for cell in line.strip("│ ").split("┆")]
        assert cells == [f"{v:.6f}" if isinstance(v, float) else str(v) for v in row]


def test_eval_by_gives_one_row_per_slice(capsys, logs):
    code, out, _ = run(capsys, "eval", logs, "-m", "auc,gauc", *BINDING, "--by", "date,country", "--format", "csv")
    assert code == 0
    got = pl.read_csv(io.StringIO(out))
    expected = sm.evaluate(logs, ["auc", "gauc"], by=["date", "country"], **KWARGS)
    assert got.height == 4
    assert_frame_equal(got, expected, check_dtypes=False)


def test_eval_polars_engine(capsys, logs):
    argv = ["eval", logs, "-m", "auc,gauc,logloss", *BINDING, "--by", "date", "--engine", "polars", "--format", "csv"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    expected = sm.evaluate(logs, ["auc", "gauc", "logloss"], by="date", engine="polars", **KWARGS)
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False)


def test_eval_reads_directories_and_globs(capsys, logs):
    for source in (logs.parent, logs.parent / "*.parquet"):
        code, out, _ = run(capsys, "eval", source, "-m", "auc", *BINDING, "--format", "csv")
        assert code == 0
        assert_frame_equal(pl.read_csv(io.StringIO(out)), sm.evaluate(logs, "auc", **KWARGS), check_dtypes=False)


# --- metric parameters ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "call", "column"),
    [
        ("fbeta:beta=2", sm.metric("fbeta", beta=2), "fbeta_beta_2"),
        ("precision:threshold=0.3", sm.metric("precision", threshold=0.3), "precision_threshold_0p3"),
        ("gauc:weighting=uniform", sm.metric("gauc", weighting="uniform"), "gauc_uniform"),
        ("fbeta:beta=0.5:threshold=0.7", sm.metric("fbeta", beta=0.5, threshold=0.7), "fbeta_beta_0p5_threshold_0p7"),
    ],
)
def test_metric_parameters(capsys, logs, spec, call, column):
    code, out, _ = run(capsys, "eval", logs, "-m", f"auc,{spec}", *BINDING, "--format", "csv")
    assert code == 0
    got = pl.read_csv(io.StringIO(out))
    assert column in got.columns
    assert_frame_equal(got, sm.evaluate(logs, ["auc", call], **KWARGS), check_dtypes=False)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2", 2),
        ("-3", -3),
        ("0.3", 0.3),
        ("1e3", 1000.0),
        ("uniform", "uniform"),
        ("١٠", "١٠"),  # Arabic-Indic digits: no numeral (int() reads 10)
        ("1_0", "1_0"),  # an underscore: no numeral (int() reads 10)
        ("1_0.5", "1_0.5"),
    ],
)
def test_parse_value_tries_int_then_float_then_string(text, value):
    parsed = parse_value(text)
    assert parsed == value and type(parsed) is type(value)


def test_parse_metric():
    assert parse_metric("auc") == ("auc", {})
    assert parse_metric("ndcg@10") == ("ndcg@10", {})
    assert parse_metric("fbeta:beta=2:threshold=0.25") == ("fbeta", {"beta": 2, "threshold": 0.25})


@pytest.mark.parametrize("spec", ["fbeta:beta", "fbeta:=2", "fbeta:beta=", ":beta=2", "fbeta:beta=1:beta=2", "auc,"])
def test_malformed_metric_specs_are_usage_errors(capsys, logs, spec):
    code, _, err = run(capsys, "eval", logs, "-m", spec, *BINDING)
    assert_user_error(code, err, 2, "--metrics")


def test_invalid_parameter_value(capsys, logs):
    code, _, err = run(capsys, "eval", logs, "-m", "fbeta:beta=-1", *BINDING)
    assert_user_error(code, err, 1, "fbeta", "beta", "-1")


@pytest.mark.parametrize(
    "spec, fragments",
    [
        ("ndcg@١٠", ("ndcg", "'k'", "'١٠'")),
        ("ndcg@1_0", ("ndcg", "'k'", "'1_0'")),
        ("fbeta:beta=1_0", ("'beta'", "'1_0'")),
    ],
)
def test_a_value_of_other_digits_than_ascii_is_refused(capsys, logs, spec, fragments):
    code, _, err = run(capsys, "eval", logs, "-m", spec, *BINDING)
    assert_user_error(code, err, 1, *fragments)


# --- metrics and sql -----------------------------------------------------------------


@pytest.mark.parametrize("columns", [60, 80])
def test_metrics_lists_every_registered_metric_by_family_within_the_terminal(capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = run(capsys, "metrics")
    assert code == 0
    lines = out.splitlines()
    assert max(map(len, lines)) <= columns
    headings = [i for i, line in enumerate(lines) if line and not line.startswith(" ")]
    for name, spec in sm.registry().items():
        at = next(i for i, line in enumerate(lines) if line.startswith(f"  {name} "))
        heading = lines[max(h for h in headings if h < at)]
        assert heading.split()[0] == spec.family
        listed = " ".join(lines[at:]).split(f"  {name} ", 1)[1]  # its summary and parameters, wrapped
        assert " ".join(listed.split()).startswith(" ".join(spec.summary.split()))
        for param in spec.params:
            assert (f"{param.name} (required)" if param.required else f"{param.name}=") in listed


def test_metrics_shows_defaults_and_choices(capsys):
    _, out, _ = run(capsys, "metrics")
    assert "beta=1, threshold=0.5" in out
    assert "weighting=impressions (impressions|positives|uniform)" in out


@pytest.mark.parametrize("name", ["ndcg", "precision@k", "ndcg@10", "fbeta", "gauc"])
def test_metrics_name_shows_formula_parameters_and_reference_within_the_terminal(capsys, monkeypatch, name):
    monkeypatch.setenv("COLUMNS", "60")
    code, out, _ = run(capsys, "metrics", name)
    spec = sm.registry().get(name) or sm.metric(name).spec
    assert code == 0
    text = " ".join(out.split())  # the words, whatever the wrapping
    assert text.startswith(f"{spec.name} ({spec.family}): {' '.join(spec.summary.split())} needs: ")
    for param in spec.params:
        assert " ".join(param.doc.split()) in text
    assert f"reference: {' '.join(spec.reference.split())}" in text
    assert f"SQL: sql/{spec.template}" in out
    example = [line for line in out.splitlines() if line.startswith((">>> ", "... "))]
    assert example  # the runnable example of its polars form, as written (code is not rewrapped)
    assert all(len(line) <= 60 for line in out.splitlines() if line not in example)


def test_metrics_unknown_name_suggests(capsys):
    code, _, err = run(capsys, "metrics", "nddcg")
    assert_user_error(code, err, 1, "unknown metric 'nddcg'", "'ndcg'")


def test_sql_runs_in_duckdb_with_the_same_numbers(capsys, logs):
    argv = ["-m", "auc,gauc,logloss,fbeta:beta=2", *BINDING, "--by", "date"]
    code, out, _ = run(capsys, "sql", logs, *argv)
    assert code == 0
    calls = ["auc", "gauc", "logloss", sm.fbeta(beta=2)]
    assert out.strip() == sm.to_sql(calls, source=str(logs), by="date", **KWARGS).strip()
    with duckdb.connect() as con:
        got = con.sql(out).pl()
    assert_frame_equal(got, sm.evaluate(logs, calls, by="date", **KWARGS))


def test_sql_of_a_comparison_is_the_statement_compare_runs(capsys, logs):
    """--arm and --scores print to_sql's statement of sm.compare, which runs in DuckDB."""
    code, out, _ = run(capsys, "sql", logs, "-m", "auc,logloss", *BINDING, "--arm", "country", "--ci-unit", "rows")
    assert code == 0
    expected = sm.to_sql(["auc", "logloss"], source=str(logs), arm="country", ci_unit="rows", **KWARGS)
    assert out.strip() == expected.strip()
    with duckdb.connect() as con:
        arms = con.sql(out).pl()
    assert arms["country"].to_list() == ["de", "fr"] and arms["auc_se"].null_count() == 0
    code, out, _ = run(capsys, "sql", logs, "-m", "auc", "--label", "click", "--scores", "pctr,w")
    assert code == 0
    assert out.strip() == sm.to_sql(["auc"], source=str(logs), label="click", scores=("pctr", "w")).strip()


def test_sql_of_a_state_and_of_its_rollup(capsys, logs):
    """--state prints sm.state's statement, whose rows go INTO a table of states; --rollup
    the roll-up's over that table (--by: the roll-up's slices), which gives sm.evaluate's
    result over the rows."""
    argv = ["-m", "auc,logloss,calibration", "--label", "click", "--score", "pctr", "--weight", "w"]
    calls, columns = ["auc", "logloss", "calibration"], {"label": "click", "score": "pctr", "weight": "w"}
    code, state, _ = run(capsys, "sql", logs, *argv, "--by", "date,country", "--state")
    assert code == 0
    assert state.strip() == sm.to_sql(calls, source=str(logs), by=["date", "country"], state=True, **columns).strip()
    code, rollup, _ = run(capsys, "sql", "--table", "states", *argv, "--by", "date", "--rollup")
    assert code == 0
    assert rollup.strip() == sm.to_sql(calls, source="states", by="date", rollup=True, **columns).strip()
    with duckdb.connect() as con:
        con.execute("CREATE TABLE states AS\n" + state)
        assert_frame_equal(con.sql(rollup).pl(), sm.evaluate(logs, calls, by="date", **columns))
    code, _, err = run(capsys, "sql", logs, *argv, "--state", "--rollup")
    assert_user_error(code, err, 2, "--rollup", "--state")


def test_sql_needs_no_existing_file(capsys):
    code, out, _ = run(capsys, "sql", "logs/*.parquet", "-m", "auc")
    assert code == 0
    assert "read_parquet('logs/*.parquet', can_have_nan = true)" in out


@pytest.mark.parametrize("dialect", ["spark", "trino", "bigquery", "snowflake", "postgres"])
def test_sql_for_a_warehouse_table(capsys, dialect):
    argv = ["--table", "logs.impressions", "--dialect", dialect, "-m", "auc,ndcg@10", *BINDING, "--by", "date"]
    code, out, _ = run(capsys, "sql", *argv)
    assert code == 0
    calls = ["auc", "ndcg@10"]
    assert out.strip() == sm.to_sql(calls, source="logs.impressions", by="date", dialect=dialect, **KWARGS).strip()


def test_sql_takes_the_source_once(capsys):
    code, _, err = run(capsys, "sql", "t", "--table", "logs.impressions", "-m", "auc")
    assert_user_error(code, err, 1, "SOURCE", "--table")
    code, _, err = run(capsys, "sql", "-m", "auc")
    assert_user_error(code, err, 1, "SOURCE", "--table")


# --- errors --------------------------------------------------------------------------


def test_missing_column(capsys, logs):
    code, _, err = run(capsys, "eval", logs, "-m", "auc", "--label", "clicked", "--score", "pctr")
    assert_user_error(code, err, 1, "'clicked'")


def test_unknown_metric_suggests_the_closest(capsys, logs):
    code, _, err = run(capsys, "eval", logs, "-m", "auc,loglos", *BINDING)
    assert_user_error(code, err, 1, "'loglos'", "'logloss'")


def test_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "eval", tmp_path / "nope.parquet", "-m", "auc")
    assert_user_error(code, err, 1, "nope.parquet")


def test_missing_file_without_extension_is_still_a_path(capsys, tmp_path):
    code, _, err = run(capsys, "eval", "no_such_logs", "-m", "auc")
    assert_user_error(code, err, 1, "no_such_logs")


def test_a_source_without_rows_says_so(capsys, tmp_path):
    empty = tmp_path / "empty.parquet"
    pl.DataFrame({"click": [], "pctr": []}, schema={"click": pl.Int64, "pctr": pl.Float64}).write_parquet(empty)
    code, out, err = run(capsys, "eval", empty, "-m", "auc", "--label", "click", "--score", "pctr", "--format", "csv")
    assert code == 0 and out.startswith("n_rows,n_excluded,auc")
    assert err == "sqlmetrics: warning: the source has no rows: every metric is NULL\n"


def test_a_source_whose_rows_are_all_excluded_says_so(capsys, tmp_path):
    nulls = tmp_path / "nulls.parquet"
    pl.DataFrame({"click": [1, 0, 1], "pctr": [None, None, None]}, schema_overrides={"pctr": pl.Float64}).write_parquet(
        nulls
    )
    code, _, err = run(capsys, "eval", nulls, "-m", "auc", "--label", "click", "--score", "pctr")
    assert code == 0
    assert (
        err
        == "sqlmetrics: warning: all 3 rows were excluded (each has a NULL in a bound column): every metric is NULL\n"
    )


TABLE_COMMANDS = {
    "per-class": (["per-class"], ["-m", "f1", "--label", "click", "--prediction", "pred"]),
    "confusion-matrix": (["confusion-matrix"], ["--label", "click", "--prediction", "pred"]),
    "roc": (["curve", "roc"], ["--label", "click", "--score", "pctr"]),
    "calibration": (["curve", "calibration"], ["--label", "click", "--score", "pctr"]),
}


@pytest.mark.parametrize("command", sorted(TABLE_COMMANDS))
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_an_empty_table_says_why(capsys, tmp_path, command, engine):
    head, options = TABLE_COMMANDS[command]
    schema = {"click": pl.Int64, "pctr": pl.Float64, "pred": pl.Int64}
    nulls = {"click": [1, 0, 1], "pctr": [None] * 3, "pred": [None] * 3}
    sources = {"empty": pl.DataFrame(schema=schema), "nulls": pl.DataFrame(nulls, schema=schema)}
    reasons = {
        "empty": "the source has no rows",
        "nulls": "all 3 rows were excluded (each has a NULL in a bound column)",
    }
    for name, frame in sources.items():
        path = tmp_path / f"{name}.parquet"
        frame.write_parquet(path)
        code, out, err = run(capsys, *head, path, *options, "--engine", engine, "--format", "csv")
        assert code == 0 and len(out.splitlines()) == 1  # the header alone
        assert err == f"sqlmetrics: warning: {reasons[name]}: the table is empty\n"


EMPTY_PATHS = {
    "eval": ["eval", "", "-m", "auc", "--score", "pctr"],
    "eval --judgments": ["eval", "run.parquet", "-m", "ndcg@10", "--query", "q", "--judgments", ""],
    "eval --output": ["eval", "logs.parquet", "-m", "auc", "--score", "pctr", "--output", ""],
    "curve": ["curve", "roc", "", "--score", "pctr"],
    "confusion-matrix": ["confusion-matrix", "", "--prediction", "pred"],
    "rollup": ["rollup", ""],
    "report": ["report", "", "-m", "auc", "--score", "pctr"],
    "report --output": ["report", "logs.parquet", "-m", "auc", "--score", "pctr", "--output", ""],
}


@pytest.mark.parametrize("command", sorted(EMPTY_PATHS))
def test_an_empty_path_is_refused_not_read_as_the_working_directory(capsys, tmp_path, monkeypatch, command):
    """An unset shell variable (``sqlmetrics eval "$LOGS"``) gives an empty path, which
    named the working directory: every Parquet file under it was read (rc 0)."""
    frame = pl.DataFrame({"label": [0, 1, 1, 0], "pctr": [0.1, 0.8, 0.4, 0.3], "pred": [0, 1, 0, 0]})
    frame.write_parquet(tmp_path / "logs.parquet")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *EMPTY_PATHS[command])
    assert_user_error(code, err, 2, "an empty path (an unset shell variable?)")
    assert out == ""


def test_a_source_with_rows_used_gives_no_warning(capsys, logs):
    code, _, err = run(capsys, "eval", logs, "-m", "auc", *BINDING)
    assert (code, err) == (0, "")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["-m", "gauc", "--label", "click", "--score", "pctr"], "pass --query <the user/request/query id column>"),
        (["-m", "ndcg:ties=item", *BINDING], "pass --item <the item/document id column>"),
        (["-m", "ndcg", *BINDING, "--weight", "w"], "in a call without --weight"),
        (["-m", "multiclass_f1", "--label", "click"], "pass --prediction <the predicted class column>"),
        (["-m", "multiclass_auc", "--label", "click"], "pass --class-scores CLASS=COLUMN,... or --long-scores PATH"),
        (["-m", "average_precision", *BINDING, "--ci", "0.9", "--ci-method", "analytic"],
         "--ci-method bootstrap (or auto) resamples"),
        (["-m", "auc,average_precision", *BINDING, "--ci", "0.9", "--ci-method", "analytic", "--ci-unit", "user_id"],
         "--ci-unit user_id: no analytic interval clustered by it for average_precision: clustered intervals exist"),
        (["-m", "f1", *BINDING, "--ci", "0.9", "--resamples", "1"], "--resamples must be an integer from 2 to 10,000"),
        (["-m", "f1", *BINDING, "--ci", "0.9", "--seed", "-1"], "--seed must be an integer from 0 to 2147483646"),
        (["-m", "f1", *BINDING, "--ci", "0.9", "--seed", str(2**31 - 1)],
         "--seed must be an integer from 0 to 2147483646"),
        (["-m", "f1", *BINDING, "--ci", "0.9", "--seed", str(2**64)], "got 18446744073709551616"),
    ],
)  # fmt: skip
def test_errors_name_the_command_line_options(capsys, logs, argv, fragment):
    code, _, err = run(capsys, "eval", logs, *argv)
    assert_user_error(code, err, 1, fragment)
    assert "=<" not in err and "sm." not in err and "ci_" not in err and "'auto'" not in err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (
            ["--arm", "date", "--baseline", "x", "--ci-unit", "rows", "--ci-method", "analytic", "-m",
             "average_precision"],
            "--ci-method bootstrap",
        ),
        (["--arm", "date", "--baseline", "x", "--ci-unit", "rows", "--resamples", "1"],
         "--resamples must be an integer from 2 to 10,000"),
        (
            ["--scores", "pctr,user_id", "--ci-method", "analytic", "-m", "average_precision"],
            "--ci-method auto or bootstrap resamples",
        ),
    ],
)
def test_compare_errors_name_the_command_line_options(capsys, logs, argv, fragment):
    code, _, err = run(capsys, "compare", logs, "-m", "auc", "--label", "click", *argv)
    assert_user_error(code, err, 1, fragment)
    assert "=" not in err and "ci_" not in err


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"ci": 0.9, "resamples": 1}, "resamples"),
        ({"ci": 0.9, "seed": -1}, "seed"),
        ({"ci": 1.5}, "ci"),
        ({"ci": 0.9, "ci_method": "analytic", "ci_unit": "country"}, "ci_unit"),  # gauc over users in two countries
        ({"query": None}, "query"),
    ],
)
def test_an_error_about_a_keyword_argument_names_it(logs, kwargs, parameter):
    with pytest.raises((sm.InvalidParameterError, sm.InvalidInputError)) as raised:
        sm.evaluate(logs, ["gauc"], **(KWARGS | kwargs))
    assert raised.value.parameter == parameter


def test_the_command_line_names_the_options_whatever_the_words(capsys, logs, monkeypatch):
    """The options come from the keywords an error names, not from its wording: a message
    never seen before still reads in options (each from the parser, ``--long-class`` for
    ``sm.long_scores``' ``class_``), its values as typed."""
    from sqlmetrics.errors import Keyword, Value

    def refuse(*args, **kwargs):
        raise sm.InvalidParameterError(
            "reworded: ", Keyword("resamples"), " wants ", Keyword("ci_method", "bootstrap"), " (or ", Value("auto"),
            "), ", Keyword("query", hint="a column"), " and ", Keyword("long_scores.class_"), "; ",
            Keyword("class_scores", python="class_scores={class: column}", words="{option} {metavar}"),
        )  # fmt: skip

    monkeypatch.setattr(sm, "evaluate", refuse)
    code, _, err = run(capsys, "eval", logs, "-m", "auc", *BINDING)
    assert (code, err) == (
        1,
        "sqlmetrics: error: reworded: --resamples wants --ci-method bootstrap (or auto), --query <a column> and "
        "--long-class; --class-scores CLASS=COLUMN,...\n",
    )


def test_every_keyword_an_error_names_is_an_option():
    """Each keyword the package's errors name (``Keyword("...")``, read from the source)
    and each of ``sm.long_scores``' (named by an f-string in ``rules/schema.py``) has its option
    in the parser: none is left for the command line to show as Python spells it."""
    import ast

    package = Path(sm.__file__).parent
    named = {"long_scores.row_id", "long_scores.class_", "long_scores.score"}
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Keyword":
                if node.args and isinstance(node.args[0], ast.Constant):
                    named.add(node.args[0].value)
    assert {"resamples", "ci_method", "query", "source"} <= named  # the walk sees the raise sites
    known = messages.options(cli.parser.build_parser())
    assert sorted(named - set(known)) == []
    assert [max(known[name].option_strings, key=len) for name in ("long_scores.class_", "source", "ci_unit")] == [
        "--long-class",
        "--table",
        "--ci-unit",
    ]


@pytest.fixture(scope="module")
def long_scores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Rows of classes a and b (and one z that no score names) and their long class scores:
    complete, missing row 4's, and scoring row 1's class a twice."""
    folder = tmp_path_factory.mktemp("long")
    rows = pl.DataFrame({"id": [1, 2, 3, 4], "y": ["a", "b", "a", "z"], "q": [1, 1, 2, 2]})
    rows.write_parquet(folder / "rows.parquet")
    ids, classes, scores = [1, 1, 2, 2, 3, 3, 4, 4], ["a", "b"] * 4, [0.6, 0.4, 0.3, 0.7, 0.8, 0.2, 0.5, 0.5]
    tables = {"complete": (ids, classes, scores), "missing": (ids[:6], classes[:6], scores[:6])}
    tables["repeated"] = ([1, *ids], ["a", *classes], [0.1, *scores])
    for name, (row_id, cls, score) in tables.items():
        pl.DataFrame({"id": row_id, "class": cls, "score": score}).write_parquet(folder / f"{name}.parquet")
    return {"rows": folder / "rows.parquet", **{name: folder / f"{name}.parquet" for name in tables}}


@pytest.mark.parametrize(
    ("table", "options", "fragment"),
    [
        ("complete", ["--row-id", "nope"], "--row-id column 'nope' not found; the source has: id, y, q"),
        ("complete", ["--row-id", "id", "--long-class", "c"], "--long-class column 'c' not found; the --long-scores "),
        ("complete", ["--row-id", "id", "--long-score", "s"], "--long-score column 's' not found"),
        ("missing", ["--row-id", "id"], "--long-scores must score every class for every source row"),
        ("repeated", ["--row-id", "id"], "--long-scores must score each (row id, class) once"),
        ("complete", ["--row-id", "id"], "label column 'y' must hold one of the scored classes: 1 row does not, e.g. z"),
    ],
)
def test_long_class_score_errors_name_the_command_line_options(capsys, long_scores, table, options, fragment):
    argv = ["eval", long_scores["rows"], "-m", "auc", "--label", "y", "--long-scores", long_scores[table], *options]
    code, _, err = run(capsys, *argv)
    assert_user_error(code, err, 1, fragment)
    assert "class_scores" not in err and "row_id" not in err


def test_judgments_with_class_scores_names_the_options(capsys, long_scores):
    rows, table = long_scores["rows"], long_scores["complete"]
    argv = ["-m", "ndcg", "--label", "y", "--query", "q", "--item", "id", "--judgments", table]
    code, _, err = run(capsys, "eval", rows, *argv, "--long-scores", table, "--row-id", "id")
    assert_user_error(code, err, 1, "--judgments and --class-scores (or --long-scores) cannot be combined")


def test_sql_for_a_warehouse_names_the_table_option(capsys, logs):
    code, _, err = run(capsys, "sql", logs, "--dialect", "spark", "-m", "auc", *BINDING)
    assert_user_error(code, err, 1, "pass --table NAME (e.g. logs.impressions), not a path")


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        (
            ["-m", "ndcg", "--query", "user_id", "--item", "country", "--judgments", "qrels.parquet"],
            "--judgments TABLE",
        ),
        (["-m", "auc", "--long-scores", "scores.parquet", "--row-id", "user_id"], "--long-scores TABLE"),
    ],
)
def test_sql_for_a_warehouse_names_the_option_whose_table_is_a_path(capsys, options, fragment):
    # the source is already a table: the advice is about the judgments or class scores
    code, _, err = run(capsys, "sql", "--table", "logs.run", "--dialect", "spark", *BINDING, *options)
    assert_user_error(code, err, 1, f"pass {fragment}, not a path")
    assert "--table" not in err


def test_parquet_needs_output(capsys, logs):
    code, out, err = run(capsys, "eval", logs, "-m", "auc", *BINDING, "--format", "parquet")
    assert_user_error(code, err, 2, "--output")
    assert out == ""


def test_missing_query_for_gauc(capsys, logs):
    code, _, err = run(capsys, "eval", logs, "-m", "gauc", "--label", "click", "--score", "pctr")
    assert_user_error(code, err, 1, "query")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["evaluate"],
        ["eval"],
        ["eval", "x.parquet"],
        ["eval", "x.parquet", "-m", "auc", "--engine", "spark"],
        ["sql", "x.parquet", "-m", "auc", "--dialect", "nosuch"],
        ["metrics", "--bogus"],
    ],
)
def test_bad_command_lines_exit_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert_user_error(code, err, 2)
    assert out == ""


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.strip() == f"sqlmetrics {sm.__version__}"


# --- progress bar --------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_progress_at_a_terminal(monkeypatch, capsys, logs, engine):
    shown = []

    class Recorder(progress.Progress):
        def __exit__(self, *ended):
            shown.append((self.what, self.percent is not None))
            return super().__exit__(*ended)

    monkeypatch.setattr(progress, "Progress", Recorder)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert cli.main(["eval", str(logs), "-m", "auc", *BINDING, "--engine", engine]) == 0
    # DuckDB's engine hands the line the share done (test_long_bootstrap reads it)
    assert shown == [(f"computing over {logs}", engine == "duckdb")]
    shown.clear()
    assert cli.main(["eval", str(logs), "-m", "auc", *BINDING, "--engine", engine, "--quiet"]) == 0
    assert shown == []


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# --- the installed entry point -------------------------------------------------------


def test_console_script(logs):
    script = shutil.which("sqlmetrics", path=str(Path(sys.executable).parent)) or shutil.which("sqlmetrics")
    assert script, "the sqlmetrics console script is not installed (pip install -e .)"
    done = subprocess.run(
        [script, "eval", str(logs), "-m", "auc,gauc", *BINDING, "--format", "csv"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    expected = sm.evaluate(logs, ["auc", "gauc"], **KWARGS)
    assert_frame_equal(pl.read_csv(io.StringIO(done.stdout)), expected, check_dtypes=False)
    failed = subprocess.run([script, "eval", str(logs), "-m", "acu"], capture_output=True, text=True, check=False)
    assert failed.returncode == 1
    assert failed.stderr.startswith("sqlmetrics: error: unknown metric 'acu'") and "Traceback" not in failed.stderr


# --- ranking: impressions, judgments, TREC files ---------------------------------------


def test_eval_ranking_over_impressions(capsys, logs):
    metrics = "ndcg@5,mrr,map:ties=pessimistic,hit_rate@3,precision@3,rank_corr"
    code, out, err = run(capsys, "eval", logs, "--metrics", metrics, *BINDING, "--by", "date", "--format", "csv")
    assert (code, err) == (0, "")
    calls = [
        sm.metric("ndcg@5"),
        sm.metric("mrr"),
        sm.metric("map", ties="pessimistic"),
        sm.metric("hit_rate@3"),
        sm.metric("precision@3"),
        sm.metric("rank_corr"),
    ]
    expected = sm.evaluate(logs, calls, **KWARGS, by="date")
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False)


@pytest.fixture(scope="module")
def trec_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A TREC run (3 topics, tied scores) and its qrels (graded, some unretrieved)."""
    rng = random.Random(11)
    folder = tmp_path_factory.mktemp("trec")
    run_lines, qrels_lines = [], []
    for topic in ("301", "302", "303"):
        docs = [f"doc{n}" for n in rng.sample(range(40), 12)]
        for rank, doc in enumerate(docs, 1):
            run_lines.append(f"{topic} Q0 {doc} {rank} {round(rng.random(), 1)} system")
        for doc in rng.sample(docs, 6) + [f"new{topic}"]:
            qrels_lines.append(f"{topic} 0 {doc} {rng.choice([0, 1, 2])}")
    (folder / "run.txt").write_text("\n".join(run_lines) + "\n")
    (folder / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
    return folder / "run.txt", folder / "qrels.txt"


def test_eval_trec_files_match_trec_eval(capsys, trec_files):
    import pytrec_eval

    run_path, qrels_path = trec_files
    metrics = "ndcg@10:gain=linear:ties=item:empty=zero,map:ties=item:empty=zero,precision@5:ties=item:empty=zero"
    code, out, err = run(
        capsys, "eval", run_path, "--judgments", qrels_path, "--trec", "--metrics", metrics, "--format", "json"
    )
    assert (code, err) == (0, "")
    result = json.loads(out)[0]
    run_frame, qrels = sm.read_trec_run(run_path), sm.read_trec_qrels(qrels_path)
    evaluator = pytrec_eval.RelevanceEvaluator(
        {q: {i: int(r) for q2, i, r in qrels.iter_rows() if q2 == q} for q in qrels["query"].unique()},
        {"ndcg_cut", "map", "P"},
    )
    per_query = evaluator.evaluate(
        {q: {i: s for q2, i, s, *_ in run_frame.iter_rows() if q2 == q} for q in run_frame["query"].unique()}
    )
    for ours, theirs in (
        ("ndcg_at_10_linear_item_zero", "ndcg_cut_10"),
        ("map_item_zero", "map"),
        ("precision_at_5_item_zero", "P_5"),
    ):
        expected = sum(values[theirs] for values in per_query.values()) / len(per_query)
        assert result[ours] == pytest.approx(expected, abs=1e-9)


def test_eval_judgments_from_parquet(capsys, tmp_path, trec_files):
    run_path, qrels_path = trec_files
    sm.read_trec_run(run_path).write_parquet(tmp_path / "run.parquet")
    sm.read_trec_qrels(qrels_path).write_parquet(tmp_path / "qrels.parquet")
    roles = ["--query", "query", "--item", "item", "--score", "score", "--label", "relevance"]
    args = [
        tmp_path / "run.parquet",
        "--judgments",
        tmp_path / "qrels.parquet",
        "--metrics",
        "ndcg@10,recall@5",
        *roles,
    ]
    code, out, err = run(capsys, "eval", *args, "--format", "csv")
    assert (code, err) == (0, "")
    expected = sm.evaluate(
        sm.read_trec_run(run_path),
        ["ndcg@10", "recall@5"],
        judgments=sm.read_trec_qrels(qrels_path),
        query="query",
        item="item",
        score="score",
        label="relevance",
    )
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False)


def test_trec_needs_judgments(capsys, trec_files):
    code, _, err = run(capsys, "eval", trec_files[0], "--trec", "--metrics", "map")
    assert_user_error(code, err, 2, "--judgments")


def test_sql_for_a_run_reads_the_judgments(capsys):
    code, out, err = run(
        capsys,
        "sql",
        "run.parquet",
        "--judgments",
        "qrels.parquet",
        "--metrics",
        "ndcg@10",
        "--query",
        "q",
        "--item",
        "doc",
        "--label",
        "rel",
    )
    assert (code, err) == (0, "")
    assert "read_parquet('qrels.parquet', can_have_nan = true)" in out and "LEFT JOIN judgments" in out


# --- progress ------------------------------------------------------------------------


def test_progress_line_shows_share_and_time_then_erases_itself():
    import time

    from sqlmetrics.running.progress import Progress

    stream = io.StringIO()
    shares = iter([12.0, 55.0, 80.0, 95.0, 99.0] + [99.0] * 100)
    with Progress(stream, "computing over logs/", lambda: next(shares), after=0.05, every=0.02):
        time.sleep(0.3)
    text = stream.getvalue()
    assert text.startswith("\rsqlmetrics: computing over logs/… 12% 0 s")
    assert "55%" in text
    assert text.endswith("\r" + " " * len(text.rsplit("\r", 3)[1].rstrip()) + "\r")  # erased: blanks, back to the start


def test_progress_line_fits_the_terminal_keeping_the_file_name():
    from sqlmetrics.running.progress import Progress

    what = "computing over /data/" + "x" * 200 + "/logs.parquet"
    line = Progress(io.StringIO(), what, lambda: 37.0, width=60).line(4.2)
    assert len(line) == 59  # a shortened line fills the terminal but its last column (a full line would wrap)
    assert line.startswith("sqlmetrics: …x") and line.endswith("x/logs.parquet… 37% 4 s")


def test_progress_is_silent_for_a_short_run_and_without_a_share():
    from sqlmetrics.running.progress import Progress

    stream = io.StringIO()
    with Progress(stream, "computing", after=5.0):
        pass
    assert stream.getvalue() == ""
    assert Progress(stream, "computing", lambda: -1.0).line(3.2) == "sqlmetrics: computing… 3 s"


def test_no_progress_when_stderr_is_not_a_terminal_or_quiet(capsys, logs):
    for quiet in ([], ["--quiet"]):
        code, _, err = run(capsys, "eval", logs, "-m", "auc", *BINDING, *quiet)
        assert (code, err) == (0, "")


# --- state and rollup ----------------------------------------------------------------

DAYS = ["2024-05-01", "2024-05-02", "2024-05-03"]
STATE_METRICS = ["auc", "gauc", "logloss", "ndcg_at_10"]
STATE_BINDING = ["--label", "click", "--score", "pctr", "--query", "request"]
STATE_KWARGS = {"label": "click", "score": "pctr", "query": "request"}


@pytest.fixture(scope="module")
def days(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A small log split by day, one Parquet file a day, and its union: each request (the
    query) within one day and country, as a roll-up needs."""
    rng = random.Random(11)
    rows = []
    for day in DAYS:
        for _ in range(80):
            click, request = int(rng.random() < 0.35), rng.randrange(8)
            rows.append(
                {
                    "day": day,
                    "country": ["de", "fr"][request % 2],
                    "request": f"{day}/{request}",
                    "click": click,
                    "pctr": round(min(0.99, 0.25 * click + 0.75 * rng.random()), 2),
                }
            )
    folder = tmp_path_factory.mktemp("days")
    union = pl.DataFrame(rows)
    union.write_parquet(folder / "union.parquet")
    for day in DAYS:
        union.filter(day=day).write_parquet(folder / f"{day}.parquet")
    return folder, folder / "union.parquet"


@pytest.fixture(scope="module")
def states(days: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The days' states, written by ``sqlmetrics state``, one file a day in one folder."""
    folder, target = days[0], tmp_path_factory.mktemp("states")
    for day in DAYS:
        argv = ["state", folder / f"{day}.parquet", "-m", "auc,gauc,logloss,ndcg@10", *STATE_BINDING]
        assert cli.main([str(arg) for arg in [*argv, "--by", "day,country", "-o", target / f"day={day}.parquet"]]) == 0
    return target


def test_state_writes_the_state_and_says_its_parts_and_rows(capsys, days, tmp_path):
    source, target = days[0] / f"{DAYS[0]}.parquet", tmp_path / "day.parquet"
    code, out, err = run(capsys, "state", source, "-m", "auc,gauc", *STATE_BINDING, "--by", "country", "-o", target)
    assert (code, out) == (0, "")
    written = pl.read_parquet(target)
    expected = sm.state(source, ["auc", "gauc"], **STATE_KWARGS, by="country")
    # a state's rows come in no fixed order; its id is made when it is built
    assert_frame_equal(written.drop("state_id"), expected.drop("state_id"), check_row_order=False)
    parts = {part: (written["state_part"] == part).sum() for part in ("base", "gauc", "slices", "meta")}
    assert parts["meta"] == 1 and parts["slices"] == 2 and parts["base"] > 0 and parts["gauc"] > 0  # de and fr
    assert err == (
        f"sqlmetrics: wrote {target}: {written.height:,} rows "
        f"(base {parts['base']}, gauc {parts['gauc']}, slices {parts['slices']}, meta {parts['meta']})\n"
    )


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_state_on_either_engine(capsys, days, tmp_path, engine):
    source, target = days[0] / f"{DAYS[0]}.parquet", tmp_path / "day.parquet"
    code, _, _ = run(capsys, "state", source, "-m", "auc,ndcg@10", *STATE_BINDING, "--engine", engine, "-o", target)
    assert code == 0
    expected = sm.state(source, ["auc", "ndcg@10"], **STATE_KWARGS, engine=engine).drop("state_id")
    assert_frame_equal(pl.read_parquet(target).drop("state_id"), expected, check_row_order=False)


def test_state_rounds_scores_with_score_digits(capsys, days, tmp_path):
    """--score-digits is sm.state's score_digits; the roll-up reports the bound."""
    source, target = days[0] / f"{DAYS[0]}.parquet", tmp_path / "day.parquet"
    code, _, _ = run(capsys, "state", source, "-m", "auc,logloss", *STATE_BINDING, "--score-digits", "1", "-o", target)
    assert code == 0
    expected = sm.state(source, ["auc", "logloss"], **STATE_KWARGS, score_digits=1).drop("state_id")
    assert_frame_equal(pl.read_parquet(target).drop("state_id"), expected, check_row_order=False)
    code, out, _ = run(capsys, "rollup", target, "--format", "csv")
    assert code == 0 and "auc_max_error" in out.splitlines()[0]


@pytest.mark.parametrize("by", [[], ["country"], ["day"], ["day", "country"]])
def test_rollup_prints_the_numbers_of_evaluate_over_the_union(capsys, days, states, by):
    options = ["--by", ",".join(by)] if by else []
    code, out, err = run(capsys, "rollup", states, *options, "--format", "csv")
    assert (code, err) == (0, "")
    expected = sm.evaluate(days[1], ["auc", "gauc", "logloss", "ndcg@10"], **STATE_KWARGS, by=by or None)
    assert_frame_equal(pl.read_csv(io.StringIO(out)), expected, check_dtypes=False, rel_tol=1e-9, abs_tol=1e-12)


def test_rollup_reads_a_glob_picks_metrics_and_gives_intervals(capsys, days, states):
    argv = [states / "day=*.parquet", "-m", "auc,ndcg@10", "--by", "country", "--ci", "0.9", "--format", "json"]
    code, out, err = run(capsys, "rollup", *argv)
    assert code == 0
    expected = sm.evaluate(days[1], ["auc", "ndcg@10"], **STATE_KWARGS, by="country", ci=0.9)
    assert_frame_equal(pl.DataFrame(json.loads(out)), expected, check_dtypes=False, rel_tol=1e-9, abs_tol=1e-12)
    assert err == (
        "sqlmetrics: intervals at 90%: auc DeLong (normal); ndcg_at_10 Student's t over queries (Student's t)\n"
    )


def test_rollup_writes_every_format_eval_writes(capsys, days, states, tmp_path):
    expected = sm.evaluate(days[1], ["auc", "gauc", "logloss", "ndcg@10"], **STATE_KWARGS, by="day")
    code, out, _ = run(capsys, "rollup", states, "--by", "day")
    assert code == 0
    header = next(line for line in out.splitlines() if "n_rows" in line)
    assert [cell.strip() for cell in header.strip("│ ").split("┆")] == expected.columns
    target = tmp_path / "rolled.parquet"
    code, out, _ = run(capsys, "rollup", states, "--by", "day", "-o", target)
    assert (code, out) == (0, "")
    assert_frame_equal(pl.read_parquet(target), expected, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize(
    ("argv", "status", "fragment"),
    [
        (["rollup", "{union}"], 1, "not a state"),
        (["rollup", "{tmp}/no_such_states"], 1, "no state files at"),
        (["rollup", "{states}", "--by", "request"], 1, "--by: 'request' not among the states' slices"),
        (["rollup", "{states}", "-m", "brier"], 1, "brier not in the states, which keep auc, gauc, logloss"),
        (["rollup", "{states}", "-m", "auc", "--engine", "polars"], 2, "unrecognized arguments: --engine"),
        (["state", "{union}", "-m", "auc", *STATE_BINDING, "-o", "{tmp}/day.csv"], 2, "is not a .parquet file"),
        (["state", "{union}", "-m", "auc", *STATE_BINDING], 2, "the following arguments are required: --output"),
        (["state", "{union}", "-m", "auc", *STATE_BINDING, "--ci", "0.9", "-o", "{tmp}/d.parquet"], 2, "--ci"),
        (["state", "{union}", "-m", "median_absolute_error", "--label", "click", "--score", "pctr",
          "-o", "{tmp}/d.parquet"], 1, "cannot be kept in a state"),
    ],
)  # fmt: skip
def test_bad_state_and_rollup_command_lines(capsys, days, states, tmp_path, argv, status, fragment):
    places = {"union": days[1], "states": states, "tmp": tmp_path}
    code, out, err = run(capsys, *(arg.format(**places) for arg in argv))
    assert_user_error(code, err, status, fragment)
    assert out == "" and not (tmp_path / "d.parquet").exists()


def test_rollup_of_a_folder_holding_a_state_twice_or_a_job_run_twice_is_refused(capsys, days, states, tmp_path):
    """A state copied within its folder (one id twice), and a day's state written again by
    a second run of its job (another id, the same file's rows): each is refused as such,
    naming the two files (before, only gauc's queries held twice were noticed, and a metric
    of sums alone counted the day twice)."""
    first = states / f"day={DAYS[0]}.parquet"
    copied = tmp_path / "copied"
    copied.mkdir()
    shutil.copy(first, copied / "a.parquet")
    shutil.copy(first, copied / "b.parquet")
    code, _, err = run(capsys, "rollup", copied)
    assert_user_error(
        code, err, 1, "1 state is given more than once", f"given as the state file '{copied}/a.parquet'"
    )
    rerun = tmp_path / "rerun"
    rerun.mkdir()
    shutil.copy(first, rerun)
    argv = ["state", days[0] / f"{DAYS[0]}.parquet", "-m", "auc,gauc,logloss,ndcg@10", *STATE_BINDING]
    assert run(capsys, *argv, "--by", "day,country", "-o", rerun / "again.parquet")[0] == 0
    code, _, err = run(capsys, "rollup", rerun)
    assert_user_error(code, err, 1, "cover the same rows: both are states of the source", f"{DAYS[0]}.parquet' holding")


def test_rollup_of_states_of_different_calls_is_refused(capsys, days, states, tmp_path):
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copy(states / f"day={DAYS[0]}.parquet", mixed)
    other = ["state", days[0] / f"{DAYS[1]}.parquet", "-m", "auc", *STATE_BINDING, "-o", mixed / "other.parquet"]
    assert run(capsys, *other)[0] == 0
    code, _, err = run(capsys, "rollup", mixed)
    assert_user_error(code, err, 1, "the states are of different calls and do not merge")
