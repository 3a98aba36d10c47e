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
    ("text", "value"), [("2", 2), ("-3", -3), ("0.3", 0.3), ("1e3", 1000.0), ("uniform", "uniform")]
)
def test_parse_value_tries_int_then_float_then_string(text, value):
    parsed = cli.parse_value(text)
    assert parsed == value and type(parsed) is type(value)


def test_parse_metric():
    assert cli.parse_metric("auc") == ("auc", {})
    assert cli.parse_metric("ndcg@10") == ("ndcg@10", {})
    assert cli.parse_metric("fbeta:beta=2:threshold=0.25") == ("fbeta", {"beta": 2, "threshold": 0.25})


@pytest.mark.parametrize("spec", ["fbeta:beta", "fbeta:=2", "fbeta:beta=", ":beta=2", "fbeta:beta=1:beta=2", "auc,"])
def test_malformed_metric_specs_are_usage_errors(capsys, logs, spec):
    code, _, err = run(capsys, "eval", logs, "-m", spec, *BINDING)
    assert_user_error(code, err, 2, "--metrics")


def test_invalid_parameter_value(capsys, logs):
    code, _, err = run(capsys, "eval", logs, "-m", "fbeta:beta=-1", *BINDING)
    assert_user_error(code, err, 1, "fbeta", "beta", "-1")


# --- metrics and sql -----------------------------------------------------------------


def test_metrics_lists_every_registered_metric(capsys):
    code, out, _ = run(capsys, "metrics")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["metric", "family", "parameters", "summary"]
    summary_at = lines[0].index("summary")
    for name, spec in sm.registry().items():
        line = next(line for line in lines if line.split()[0] == name)
        assert spec.family in line.split()
        assert line[summary_at:] == spec.summary  # aligned
        for param in spec.params:
            assert f"{param.name} (required)" in line if param.required else f"{param.name}=" in line
            for choice in param.choices:
                assert choice in line
    assert len(lines) == 1 + len(sm.registry())


def test_metrics_shows_defaults_and_choices(capsys):
    _, out, _ = run(capsys, "metrics")
    assert "beta=1, threshold=0.5" in out
    assert "weighting=impressions (impressions|positives|uniform)" in out


def test_sql_runs_in_duckdb_with_the_same_numbers(capsys, logs):
    argv = ["-m", "auc,gauc,logloss,fbeta:beta=2", *BINDING, "--by", "date"]
    code, out, _ = run(capsys, "sql", logs, *argv)
    assert code == 0
    calls = ["auc", "gauc", "logloss", sm.fbeta(beta=2)]
    assert out.strip() == sm.to_sql(calls, source=str(logs), by="date", **KWARGS).strip()
    with duckdb.connect() as con:
        got = con.sql(out).pl()
    assert_frame_equal(got, sm.evaluate(logs, calls, by="date", **KWARGS))


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


def _progress_bar(con: duckdb.DuckDBPyConnection) -> bool:
    [(value,)] = con.sql("SELECT current_setting('enable_progress_bar')").fetchall()
    return value


def test_progress_bar_off_when_piped():
    with cli.duckdb_connection() as con:
        assert _progress_bar(con) is False


def test_progress_bar_on_at_a_terminal(monkeypatch):
    monkeypatch.setattr(cli.sys, "stdout", _Terminal())
    monkeypatch.setattr(cli.sys, "stderr", _Terminal())
    with cli.duckdb_connection() as con:
        assert _progress_bar(con) is True


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
