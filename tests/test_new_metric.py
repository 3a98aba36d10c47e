"""A new metric is its three files and nothing else (as docs/architecture.md's layout says).

A copy of the source tree gains a toy regression metric, ``half_mse`` (half the mean
squared error, the least-squares training loss), as exactly three new files: its SQL
template, its module, its test module. After the commands that regenerate what is
generated (``python -m sqlmetrics.docs --write``, the golden SQL), the registry-driven
tests of the copy discover it, compose it with every other metric, render it for every
dialect and check it against its reference; and a wrong reference makes them fail, so
the metric really is checked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
COPIED = ("sqlmetrics", "sql", "tests", "docs", "examples", "pyproject.toml", "README.md")

TEMPLATE = """\
-- half_mse: half the mean squared error, the least-squares loss
--   ½·MSE = Σ w·(ŷ − y)² / (2·Σ w)
-- NULL on an empty slice (or one whose weights are all 0).
--
-- reads:  residuals({{ by }}, w, squared_error)
-- output: {{ by }}, half_mse
SELECT {{ by }}, squared_error / CAST(NULLIF(2 * w, 0) AS DOUBLE) AS half_mse
FROM residuals
"""

MODULE = '''\
"""half_mse: half the mean squared error."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.regression._residuals import residual_weights, weighted_mean
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="half_mse",
    family="regression",
    polars_form="rows",
    summary="Σ w·(ŷ − y)² / (2·Σ w)",
    template="regression/half_mse.sql",
    intermediates=("residuals",),
    label_domain="real",
    score_domain="finite",
    higher_is_better=False,
    range=(0.0, float("inf")),
    reference="sklearn.metrics.mean_squared_error / 2",
)


def expr(score, label, weight=None) -> pl.Expr:
    """½·MSE = Σ w·(ŷ − y)² / (2·Σ w), NULL on an empty slice.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> pl.DataFrame({"p": [2.0, 0.0], "y": [3.0, 0.0]}).select(smp.half_mse("p", "y")).item()
    0.25
    """
    e, _, w = residual_weights(score, label, weight)
    return weighted_mean(e * e, w) / 2
'''

REFERENCE = '''\
"""half_mse: scikit-learn's mean_squared_error halved; NULL on zero total weight."""

from sklearn import metrics as skm


def REFERENCE(y, p, w):
    return float(skm.mean_squared_error(y, p, sample_weight=w)) / 2 if w.sum() > 0 else None
'''

NEW_FILES = {
    "sql/regression/half_mse.sql": TEMPLATE,
    "sqlmetrics/metrics/regression/half_mse.py": MODULE,
    "tests/metrics/regression/half_mse.py": REFERENCE,
}

# The registry-driven tests a new regression metric must pass with no edit of its own;
# of tests/test_golden_sql.py, those of the files a regression metric's call writes.
REGISTRY_DRIVEN = (
    "tests/test_metric_tests.py",
    "tests/test_regression_reference.py",
    "tests/test_portability.py",
    "tests/test_polars_face.py",
    "tests/test_imports.py",
    "tests/test_docs.py",
)
GOLDEN_OF_THE_FAMILY = "half_mse or regression or left_over"


def run(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """Run in the copied tree, importing its sqlmetrics (not the installed one)."""
    environment = {**os.environ, "PYTHONPATH": str(root), "SQLMETRICS_HYPOTHESIS_PROFILE": "fast", **env}
    return subprocess.run(args, cwd=root, env=environment, capture_output=True, text=True, timeout=900)


def pytest_in(root: Path, *tests: str, **env: str) -> subprocess.CompletedProcess:
    return run(root, sys.executable, "-m", "pytest", "-q", "-n0", "-p", "no:cacheprovider", *tests, **env)


def copy_tree(root: Path) -> Path:
    """The source tree copied under ``root``, without caches."""
    skip = shutil.ignore_patterns("__pycache__", "artifacts", "*.egg-info", ".hypothesis")
    for name in COPIED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=skip)
        else:
            shutil.copy(source, root / name)
    return root


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """The source tree with the toy metric's three files added and generated files rewritten."""
    root = copy_tree(tmp_path_factory.mktemp("tree"))
    for path, text in NEW_FILES.items():
        assert not (root / path).exists(), f"{path} already exists: pick another toy"
        (root / path).write_text(text)
    generated = run(root, sys.executable, "-m", "sqlmetrics.docs", "--write")
    assert generated.returncode == 0, generated.stderr
    golden = pytest_in(root, "tests/test_golden_sql.py", "-k", GOLDEN_OF_THE_FAMILY, SQLMETRICS_UPDATE_GOLDEN="1")
    assert golden.returncode == 0, golden.stdout[-3000:]
    return root


@pytest.mark.scale
def test_three_files_are_discovered_composed_rendered_and_checked(tree):
    listed = run(tree, sys.executable, "-c", "import sqlmetrics as sm; print(sm.registry()['half_mse'].family)")
    assert listed.stdout.strip() == "regression", listed.stderr
    assert "half_mse" in (tree / "docs" / "metrics.md").read_text()
    assert {path.parent.name for path in (tree / "tests" / "golden").glob("*/half_mse.sql")} == {
        "trino",
        "bigquery",
        "snowflake",
        "clickhouse",
    }
    result = pytest_in(tree, *REGISTRY_DRIVEN)
    assert result.returncode == 0, result.stdout[-5000:]
    golden = pytest_in(tree, "tests/test_golden_sql.py", "-vv", "-k", GOLDEN_OF_THE_FAMILY)
    assert golden.returncode == 0, golden.stdout[-5000:]
    assert "test_a_metrics_own_steps_match_the_reviewed_file[half_mse-snowflake] PASSED" in golden.stdout


@pytest.mark.scale
def test_a_wrong_reference_fails_the_registry_driven_tests(tree):
    reference = tree / "tests" / "metrics" / "regression" / "half_mse.py"
    reference.write_text(REFERENCE.replace("/ 2 if", "/ 3 if"))
    try:
        # the first property that compares every metric with its reference, stopping at its failure
        result = pytest_in(tree, "tests/test_regression_reference.py", "-x", "-k", "test_metrics_match_reference")
    finally:
        reference.write_text(REFERENCE)
    assert result.returncode != 0
    assert "half_mse" in result.stdout
