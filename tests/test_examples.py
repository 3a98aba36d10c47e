"""The examples run as a user would run them, and the quickstart's claims hold."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl

import sqlmetrics as sm

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))
from generate_impressions import COUNTRIES, generate  # noqa: E402


def run_example(script: str, *args: str) -> subprocess.CompletedProcess:
    """``examples/<script>`` run as a user runs it, importing this checkout's sqlmetrics
    (not whichever copy is installed)."""
    environment = {**os.environ, "PYTHONPATH": str(EXAMPLES.parent)}
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, timeout=300, env=environment
    )


def test_quickstart_runs(tmp_path):
    done = run_example("quickstart.py", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "gauc" in done.stdout and "model_version" in done.stdout


def test_generated_log_looks_like_an_impressions_log(tmp_path):
    files = generate(tmp_path, rows=50_000, seed=1)
    assert files and all(f.suffix == ".parquet" for f in files)
    logs = pl.read_parquet(tmp_path / "*.parquet")
    assert logs.height == 50_000
    assert 0.01 < logs["click"].mean() < 0.06
    assert set(logs["model_version"]) == {"v1", "v2"}
    assert logs["pctr"].n_unique() < logs.height  # some ties
    report = sm.evaluate(
        tmp_path, ["auc", "calibration"], label="click", score="pctr", by="model_version", engine="polars"
    )
    assert (report["auc"] > 0.6).all()
    assert report["n_rows"].sum() == 50_000


def test_search_runs_runs(tmp_path):
    done = run_example("search_runs.py", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "rerank beats bm25 on" in done.stdout


def test_search_runs_reports_what_trec_eval_reports(tmp_path):
    """The example's trec_eval numbers, against pytrec_eval reading the same files."""
    import pytrec_eval
    import search_runs

    search_runs.write_collection(tmp_path)
    with open(tmp_path / "qrels.txt") as f:
        qrels = pytrec_eval.parse_qrel(f)
    for system in ("bm25", "rerank"):
        with open(tmp_path / f"{system}.run") as f:
            run = pytrec_eval.parse_run(f)
        measures = set(search_runs.TREC_MEASURES)
        per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
        ours = search_runs.trec_eval_numbers(tmp_path / f"{system}.run", tmp_path / "qrels.txt")
        for measure in measures:
            values = [numbers[measure] for numbers in per_query.values()]
            expected = pytrec_eval.compute_aggregated_measure(measure, values)
            assert abs(ours[measure] - expected) < 1e-9, (system, measure, ours[measure], expected)


def test_classifier_report_runs(tmp_path):
    done = run_example("classifier_report.py", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "average_precision" in done.stdout and "area_of_50_points" in done.stdout


def test_classifier_report_is_scikit_learns(tmp_path):
    """The example's report, both engines, against scikit-learn region by region."""
    import classifier_report as example
    from sklearn import metrics as skm
    from sklearn.preprocessing import label_binarize

    path = example.write_predictions(tmp_path, rows=3_000)
    data = pl.read_parquet(path)
    for engine in ("duckdb", "polars"):
        report = example.report(path, engine=engine)
        for region, rows in data.group_by("region"):
            got = report.filter(pl.col("region") == region[0]).row(0, named=True)
            y, y_hat, w = rows["species"].to_numpy(), rows["predicted"].to_numpy(), rows["w"].to_numpy()
            scores = rows.select(example.PROBABILITIES.values()).to_numpy()
            expected = {
                "accuracy": skm.accuracy_score(y, y_hat, sample_weight=w),
                "f1": skm.f1_score(y, y_hat, average="macro", sample_weight=w),
                "f1_weighted": skm.f1_score(y, y_hat, average="weighted", sample_weight=w),
                "mcc": skm.matthews_corrcoef(y, y_hat, sample_weight=w),
                "cohen_kappa": skm.cohen_kappa_score(y, y_hat, sample_weight=w),
                # multi_class="ovr" is this mean of binary AUCs; it would also insist on rows
                # summing to 1, which the rounded probabilities do not
                "auc": skm.roc_auc_score(label_binarize(y, classes=example.CLASSES), scores, sample_weight=w),
                "average_precision": skm.average_precision_score(
                    label_binarize(y, classes=example.CLASSES), scores, sample_weight=w
                ),
            }
            for name, value in expected.items():
                assert abs(got[name] - value) < 1e-9, (engine, region, name, got[name], value)


def test_rollup_runs(tmp_path):
    done = run_example("rollup.py", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "last 7 days (2026-11-22 to 2026-11-28), from 7 states" in done.stdout
    assert "equal sm.evaluate over the same rows" in done.stdout


def test_rollup_windows_hold_their_days_rows(tmp_path):
    """The example's roll-ups count every row of their days: 7 and 28 days of
    ``ROWS_PER_DAY`` rows each (the generator writes exactly the rows asked)."""
    import rollup as example

    week, month = example.main(tmp_path)
    assert week["n_rows"].sum() == 7 * example.ROWS_PER_DAY
    assert month["n_rows"].sum() == example.DAYS * example.ROWS_PER_DAY
    assert sorted(month["country"]) == sorted(COUNTRIES)
