"""Every test is in a tier that .ci/run runs (issue 42): a test no command runs is a defect.

The tiers are markers (pyproject.toml): ``engines`` and ``scale`` take minutes and are
deselected by the README's ``pytest`` (its addopts' ``-m``), which runs the rest, the fast
tier. .ci/run runs ``pytest`` lines; each selects with its own ``-m`` or the addopts'.
Every test of the suite, every tier (as this run collected it, or collected in a
subprocess), is held with its markers against every line's expression, as pytest's
``-m`` reads it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression
from conftest import COLLECTED

ROOT = Path(__file__).resolve().parent.parent
TIERS = {"engines", "scale"}  # the markers that name a tier; a test with neither is in the fast tier

# A plugin for the subprocess: each collected test's markers and xdist group, as JSON.
MARKERS_PLUGIN = """
import json, os

def pytest_collection_finish(session):
    from conftest import COLLECTED  # tests/conftest.py, loaded by now

    tests = {test: [sorted(markers), group] for test, (markers, group) in session.config.stash[COLLECTED].items()}
    with open(os.environ["SQLMETRICS_MARKERS"], "w") as file:
        json.dump(tests, file)
"""


def addopts_expression() -> str:
    """The ``-m`` expression of pyproject.toml's addopts: what a plain ``pytest`` selects."""
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    return _expression(shlex.split(addopts)) or ""


def _expression(arguments: list[str]) -> str | None:
    """The last ``-m`` of a command's arguments (pytest's own rule: the last wins)."""
    found = None
    for index, argument in enumerate(arguments):
        if argument == "-m" and index + 1 < len(arguments):
            found = arguments[index + 1]
        elif argument.startswith("-m") and len(argument) > 2:
            found = argument[2:]
    return found


def ci_expressions() -> list[str]:
    """The expression of every ``pytest`` that .ci/run runs (its own ``-m``, or the addopts')."""
    expressions = []
    for line in (ROOT / ".ci" / "run").read_text().splitlines():
        command = line.split("#", 1)[0]
        for part in re.split(r"&&|;|\|\|", command):
            words = shlex.split(part)
            if words and words[0] == "pytest":
                own = _expression(words[1:])
                expressions.append(addopts_expression() if own is None else own)
    return expressions


def selected(expression: str, markers: set[str]) -> bool:
    """Whether ``pytest -m expression`` selects a test with these markers ("" selects all)."""
    if not expression.strip():
        return True
    return Expression.compile(expression).evaluate(lambda name, **_: name in markers)


@pytest.fixture(scope="module")
def collected_with_groups(request, tmp_path_factory) -> dict[str, tuple[set[str], str | None]]:
    """Every test of the suite, every tier, with its markers and its xdist group: as this
    run collected them when it collected the whole suite (the README's ``pytest``: -m
    deselects after tests/conftest.py records them), else collected in a subprocess."""
    if [Path(arg).resolve() for arg in request.config.args] == [ROOT / "tests"]:
        return request.config.stash[COLLECTED]
    folder = tmp_path_factory.mktemp("markers")
    (folder / "sqlmetrics_markers.py").write_text(MARKERS_PLUGIN)
    out = folder / "markers.json"
    environment = {**os.environ, "SQLMETRICS_MARKERS": str(out), "PYTHONPATH": str(folder)}
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-m", "", "-p", "sqlmetrics_markers"]
    done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {test: (set(markers), group) for test, (markers, group) in json.loads(out.read_text()).items()}


@pytest.fixture(scope="module")
def collected(collected_with_groups) -> dict[str, set[str]]:
    return {test: markers for test, (markers, _) in collected_with_groups.items()}


def test_every_test_is_in_a_tier_ci_runs(collected):
    expressions = ci_expressions()
    assert expressions, ".ci/run runs no pytest"
    missed = [test for test, markers in collected.items() if not any(selected(e, markers) for e in expressions)]
    assert not missed, f"{len(missed)} tests no command of .ci/run runs, e.g. {missed[:5]}"


def test_the_readme_command_runs_the_fast_tier_only(collected):
    """A plain ``pytest`` (the README's) selects exactly the tests without a tier's marker,
    and each tier is non-empty: the engines and scale tiers need their own commands."""
    default = addopts_expression()
    for test, markers in collected.items():
        assert selected(default, markers) == (not markers & TIERS), test
    for tier in TIERS:
        assert any(tier in markers for markers in collected.values()), f"no test is marked {tier}"


def test_one_spark_session_and_one_postgresql_server_a_run(collected_with_groups, request):
    """Every test that starts Spark is in one xdist group, every test of the session's
    PostgreSQL server or chdb in another: each starts once a run, on one worker (two
    workers each started a Spark JVM of 2.6 GB before)."""
    engines = {test for test, (markers, _) in collected_with_groups.items() if "engines" in markers}
    spark = {test for test in engines if "test_spark_plan.py" in test or re.search(r"[\[-]spark[\]-]|_spark\b", test)}
    warehouses = {test for test in engines if re.search(r"[\[-](postgres|clickhouse)[\]-]", test)}
    if not request.config.getoption("ignore"):  # .ci/lowest ignores tests/test_sql_engines.py, the warehouses' tests
        assert spark and warehouses
    for tests, group in ((spark, "spark"), (warehouses, "warehouses")):
        for test in tests:
            assert collected_with_groups[test][1] == group, test


@pytest.mark.parametrize(
    ("expression", "markers", "expected"),
    [
        ("not engines and not scale", set(), True),
        ("not engines and not scale", {"engines", "xdist_group"}, False),
        ("engines or scale", {"scale"}, True),
        ("engines or scale", {"parametrize"}, False),
        ("", {"engines"}, True),
    ],
)
def test_selected_reads_an_expression_as_pytest_does(expression, markers, expected):
    assert selected(expression, markers) is expected


def test_the_ci_commands_are_read_from_their_lines(tmp_path, monkeypatch):
    """``pytest`` after ``&&`` counts, a comment does not, and a line without ``-m`` takes addopts'."""
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "run").write_text(
        "pip install '.[test]' && pytest\n# pytest -m nothing\npytest -m 'engines or scale'\n"
    )
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "-n 2 -m \\"not scale\\""\n')
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert ci_expressions() == ["not scale", "engines or scale"]
