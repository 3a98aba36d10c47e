"""A new family with a new role is its files and nothing else (docs/architecture.md,
"Adding a family"), but for its package's line in pyproject.toml's list of packages.

A copy of the source tree gains a toy family, ``exposure``: its declaration adds the role
``exposure`` (a number >= 0 per row, with its input rule), one shared step and one metric,
``exposure_mean`` (the label's mean, each row weighted by its exposure), as files under
``sqlmetrics/metrics/exposure/``, ``sql/exposure/`` and ``tests/`` alone (and the package
named in pyproject.toml, which lists the wheel's packages by hand). After the command
that regenerates what is generated (``python -m sqlmetrics.docs --write``: the metrics
table, the polars face, the roles' keywords of the public functions), the copy's own tests
show it end to end: ``evaluate`` on DuckDB and polars, ``to_sql`` in every dialect, the CLI
option, the input rule refusing a bad exposure (column, count, example) on both engines and
through the CLI, and a state per part rolled up; the tests that hold the layout (the
imports' layers, the generated text, the pinned signatures, the shared steps) still pass;
and the registry-driven tests (invariants, the polars face, the templates' portability)
run the toy metric too, its role's column drawn from the role's ``valid_values``.
"""

from __future__ import annotations

import dataclasses
import importlib
import shutil
import sys
from pathlib import Path

import duckdb
import pytest
from test_new_metric import copy_tree, pytest_in, run

from sqlmetrics.spec import Role
from sqlmetrics.steps import Family

registry = importlib.import_module("sqlmetrics.registry")  # the module (sqlmetrics.registry is also a function)

FAMILY = """'''Exposure: metrics of rows exposed for a time or size (``exposure``), each row's label
counted in proportion to it.

The role this family adds (``FAMILY``): ``exposure``, a number >= 0 per row; and the step
its metrics read (``INTERMEDIATES``): ``exposure_sums``, per slice Σ w·exposure·label and
Σ w·exposure, taken once in ``base`` and added up per slice (so a state keeps them and a
roll-up merges them).
'''

import polars as pl

from sqlmetrics.spec import Role, RoleRule
from sqlmetrics.steps import Family, Folded, Intermediate

FAMILY = Family(
    "exposure",
    roles=(
        Role(
            "exposure",
            "a number >= 0: how long (or how much) each row was exposed",
            rule=RoleRule(
                "be finite and >= 0",
                "(exposure < 0 OR isnan(exposure) OR isinf(exposure))",
                lambda: (pl.col("exposure") < 0) | pl.col("exposure").is_nan() | pl.col("exposure").is_infinite(),
            ),
            valid_values=(0.0, 0.5, 1.0, 3.0),
        ),
    ),
)


def exposure_sums_polars() -> list[pl.Expr]:
    '''The base sums in polars, NULL over no row as in SQL (a state built by polars).'''
    w, exposure = pl.col("w"), pl.col("exposure")

    def total(value: pl.Expr) -> pl.Expr:
        return pl.when(value.is_not_null().any()).then(value.sum())

    return [total(w * exposure * pl.col("label")).alias("exposure_label"), total(w * exposure).alias("w_exposure")]


INTERMEDIATES = {
    "exposure_sums": Intermediate(
        "exposure/exposure_sums.sql",
        base_aggregates=("SUM(w * exposure * label) AS exposure_label", "SUM(w * exposure) AS w_exposure"),
        polars_sums=exposure_sums_polars,
        folded=Folded("rows", "exposure_mean's row expression takes both sums over the used rows itself"),
    ),
}

__all__ = ["FAMILY", "INTERMEDIATES"]
"""

STEP = """-- exposure_sums: per slice Σ w·exposure·y and Σ w·exposure, the sums of base that the
-- exposure family adds to it (sqlmetrics/metrics/exposure/__init__.py).
--
-- reads:  base({{ by }}, n, exposure_label, w_exposure)
-- output: {{ by }}, exposure_label, w_exposure
SELECT {{ by }}, SUM(exposure_label) AS exposure_label, SUM(w_exposure) AS w_exposure
FROM base
WHERE n > 0
GROUP BY {{ by }}
"""

TEMPLATE = """-- exposure_mean: the label's mean, each row weighted by its exposure
--   Σ w·e·y / Σ w·e
-- NULL on a slice whose exposure sums to 0.
--
-- reads:  exposure_sums({{ by }}, exposure_label, w_exposure)
-- output: {{ by }}, exposure_mean
SELECT {{ by }}, exposure_label / CAST(NULLIF(w_exposure, 0) AS DOUBLE) AS exposure_mean
FROM exposure_sums
"""

MODULE = """'''exposure_mean: the label's mean weighted by each row's exposure.'''

from __future__ import annotations

import polars as pl

from sqlmetrics.spec import Metric

SPEC = Metric(
    name="exposure_mean",
    family="exposure",
    polars_form="rows",
    summary="Σ w·e·y / Σ w·e",
    template="exposure/exposure_mean.sql",
    intermediates=("exposure_sums",),
    needs=("label", "exposure"),
    label_domain="real",
    higher_is_better=None,
    range=None,
    row_plan=False,
    reference="numpy.average(y, weights=w * e)",
)


def expr(score, label, weight=None, *, exposure) -> pl.Expr:
    '''Σ w·e·y / Σ w·e over the rows (NULL when the exposure sums to 0).

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": [1.0, 0.0], "e": [3.0, 1.0]})
    >>> df.select(smp.exposure_mean(None, "y", exposure="e")).item()
    0.75
    '''
    w = pl.lit(1.0) if weight is None else pl.col(weight)
    e, y = pl.col(exposure), pl.col(label)
    total = (w * e).filter(y.is_not_null()).sum()
    return pl.when(total != 0).then((w * e * y).sum() / total)
"""

# The copy's own test of the family, every case on both engines where it applies.
END_TO_END = """\
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import sqlmetrics as sm
from sqlmetrics.sqltext.dialects import DIALECTS

ROWS = pl.DataFrame(
    {
        "y": [1.0, 0.0, 2.0, None, 1.0, 4.0],
        "e": [3.0, 1.0, 0.5, 1.0, None, 0.0],
        "g": ["a", "a", "b", "b", "b", "b"],
    }
)
# per slice, over the rows with neither y nor e NULL: Σ e·y / Σ e
#   a: (3·1 + 1·0) / (3 + 1) = 0.75;  b: (0.5·2 + 0·4) / (0.5 + 0) = 2.0
EXPECTED = {"a": 0.75, "b": 2.0}


def reference(frame):
    used = frame.drop_nulls(["y", "e"])
    return {
        g: float(np.average(part["y"].to_numpy(), weights=part["e"].to_numpy()))
        for (g,), part in used.group_by("g")
    }


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_evaluate(engine):
    result = sm.evaluate(ROWS, ["exposure_mean"], label="y", exposure="e", by="g", engine=engine)
    assert dict(zip(result["g"], result["exposure_mean"])) == pytest.approx(EXPECTED) == reference(ROWS)
    assert result["n_excluded"].to_list() == [0, 2]  # b: a NULL label, a NULL exposure


@pytest.mark.parametrize("dialect", DIALECTS)
def test_to_sql(dialect):
    sql = sm.to_sql(["exposure_mean"], source="t", label="y", exposure="e", dialect=dialect)
    assert "exposure_label" in sql and "must be finite and >= 0" in sql


def test_the_duckdb_statement_computes_it():
    import duckdb

    con = duckdb.connect()
    con.register("t", ROWS.to_arrow())
    sql = sm.to_sql(["exposure_mean"], source="t", label="y", exposure="e", by="g")
    result = con.sql(sql).pl()
    assert dict(zip(result["g"], result["exposure_mean"])) == pytest.approx(EXPECTED)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_bad_exposure_is_refused_with_column_count_and_example(engine):
    bad = ROWS.with_columns(pl.Series("e", [3.0, -1.0, -0.5, 1.0, None, 0.0]))
    with pytest.raises(sm.InvalidInputError) as refused:
        sm.evaluate(bad, ["exposure_mean"], label="y", exposure="e", engine=engine)
    assert str(refused.value) == (
        "exposure column 'e' must be finite and >= 0 (for exposure_mean): 2 rows are not, e.g. -1"
    )


def test_a_metric_without_its_role_asks_for_it():
    with pytest.raises(sm.InvalidParameterError, match="exposure_mean reads the exposure column: pass exposure="):
        sm.evaluate(ROWS, ["exposure_mean"], label="y")


def cli(*args):
    return subprocess.run([sys.executable, "-m", "sqlmetrics", *args], capture_output=True, text=True)


def test_the_cli_option(tmp_path):
    ROWS.write_parquet(tmp_path / "rows.parquet")
    done = cli("eval", str(tmp_path / "rows.parquet"), "-m", "exposure_mean", "--label", "y", "--exposure", "e",
               "--by", "g", "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["a,2,0,0.75", "b,2,2,2.0"]
    assert "--exposure COLUMN" in cli("eval", "--help").stdout


def test_the_cli_refuses_a_bad_exposure(tmp_path):
    ROWS.with_columns(pl.Series("e", [3.0, -1.0, -0.5, 1.0, None, 0.0])).write_parquet(tmp_path / "bad.parquet")
    done = cli("eval", str(tmp_path / "bad.parquet"), "-m", "exposure_mean", "--label", "y", "--exposure", "e")
    assert done.returncode == 1
    assert "exposure column 'e' must be finite and >= 0 (for exposure_mean): 2 rows are not, e.g. -1" in done.stderr
    missing = cli("eval", str(tmp_path / "bad.parquet"), "-m", "exposure_mean", "--label", "y")
    assert "pass --exposure" in missing.stderr


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_state_per_part_rolls_up(engine):
    parts = [ROWS.head(3), ROWS.tail(3)]  # slice b split over both states
    states = [sm.state(part, ["exposure_mean"], label="y", exposure="e", by="g", engine=engine) for part in parts]
    rolled = sm.rollup(states, by="g")
    assert dict(zip(rolled["g"], rolled["exposure_mean"])) == pytest.approx(EXPECTED)
    whole = sm.rollup(states)  # every row: (3 + 0 + 1 + 0) / (3 + 1 + 0.5 + 0)
    assert whole["exposure_mean"].item() == pytest.approx(4 / 4.5)
"""

NEW_FILES = {
    "sqlmetrics/metrics/exposure/__init__.py": FAMILY,
    "sqlmetrics/metrics/exposure/exposure_mean.py": MODULE,
    "sql/exposure/exposure_sums.sql": STEP,
    "sql/exposure/exposure_mean.sql": TEMPLATE,
    "tests/test_exposure_family.py": END_TO_END,
}

# The tests that hold the layout, which the new family must pass with no edit of theirs.
LAYOUT = ("tests/test_imports.py", "tests/test_docs.py", "tests/test_public_signatures.py", "tests/test_steps.py")
# The registry-driven tests that run every registered metric, the toy one too: each binds
# the roles a family adds to columns drawn from the role's ``valid_values``
# (tests/strategies.py), with no edit of theirs.
REGISTRY_DRIVEN = ("tests/test_invariants.py", "tests/test_polars_face.py", "tests/test_portability.py")


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """The source tree with the toy family's files added and generated text rewritten."""
    root = copy_tree(tmp_path_factory.mktemp("tree"))
    for path, text in NEW_FILES.items():
        assert not (root / path).exists(), f"{path} already exists: pick another toy"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    # the wheel's list of packages, by hand (tests/test_imports.py fails on a package left out)
    pyproject = root / "pyproject.toml"
    listed = '    "sqlmetrics.metrics.regression",\n'
    pyproject.write_text(pyproject.read_text().replace(listed, listed + '    "sqlmetrics.metrics.exposure",\n'))
    generated = run(root, sys.executable, "-m", "sqlmetrics.docs", "--write")
    assert generated.returncode == 0, generated.stderr
    return root


@pytest.mark.scale
def test_a_family_and_its_role_are_its_files(tree):
    shown = "import inspect, sqlmetrics as sm; print(inspect.signature(sm.evaluate))"
    signature = run(tree, sys.executable, "-c", shown)
    assert "exposure: 'str | None' = None" in signature.stdout, signature.stderr
    result = pytest_in(tree, "tests/test_exposure_family.py", "-v")
    assert result.returncode == 0, result.stdout[-5000:]
    assert " passed" in result.stdout and "skipped" not in result.stdout


@pytest.mark.scale
def test_the_layout_holds_with_the_new_family(tree):
    result = pytest_in(tree, *LAYOUT)
    assert result.returncode == 0, result.stdout[-5000:]


@pytest.mark.scale
def test_the_registry_driven_tests_run_the_new_familys_metric(tree):
    listed = pytest_in(tree, *REGISTRY_DRIVEN, "--collect-only", "-k", "exposure_mean")
    assert "test_docstring_examples_run[exposure_mean]" in listed.stdout, listed.stdout[-3000:]
    result = pytest_in(tree, *REGISTRY_DRIVEN)
    assert result.returncode == 0, result.stdout[-5000:]


# In the copy: its dbt package written (as ``sqlmetrics dbt --output`` writes it), and a
# model asking for the toy metric rendered as dbt renders it (tests/dbt_render.py) and run
# on DuckDB: its table, a bad exposure's and a missing one's refusals, an unknown keyword's.
DBT_MODEL = """\
import sys
from pathlib import Path

import duckdb
import polars as pl

sys.path.insert(0, "tests")
from dbt_render import CompilerError, evaluate_sql
from test_exposure_family import ROWS

from sqlmetrics.dbt import package as dbt_package

package = Path(sys.argv[1])
dbt_package.write_package(package, use_cache=False)
print("exposure_mean" in {spec.name for spec in dbt_package.carried()}, dbt_package.catalog()["roles"])
con = duckdb.connect()
con.register("t", ROWS.to_arrow())
con.register("bad", ROWS.with_columns(pl.Series("e", [3.0, -1.0, -0.5, 1.0, None, 0.0])).to_arrow())
call = dict(metrics=["exposure_mean"], label="y", exposure="e", by=["g"])
print(con.sql(evaluate_sql(package, "duckdb", '"t"', **call)).pl().rows())
try:
    con.sql(evaluate_sql(package, "duckdb", '"bad"', **call)).fetchall()
except duckdb.Error as refused:
    print(str(refused).splitlines()[0])
for wrong in (dict(metrics=["exposure_mean"], label="y"), dict(call, exposur="e")):
    try:
        evaluate_sql(package, "duckdb", '"t"', **wrong)
    except CompilerError as refused:
        print(refused)
"""

# A dbt project of the copy's package: the toy rows as a seed and a model of exposure_mean.
DBT_ROWS = "y,e,g\n1.0,3.0,a\n0.0,1.0,a\n2.0,0.5,b\n,1.0,b\n1.0,,b\n4.0,0.0,b\n"  # END_TO_END's ROWS
DBT_MODEL_SQL = (
    "{{ config(materialized='table') }}\n"
    "{{ sqlmetrics.evaluate(ref('rows'), metrics=['exposure_mean'], label='y', exposure='e', by=['g']) }}\n"
)


@pytest.mark.scale
def test_the_dbt_package_carries_the_new_role(tree, tmp_path):
    """The dbt package's evaluate takes the toy family's role by its keyword, as
    ``sm.evaluate`` does: the metric is carried (the catalog lists the role), its table is
    ``sm.evaluate``'s (END_TO_END's EXPECTED, per slice: a 0.75, b 2.0; b's rows with a
    NULL label or exposure excluded), a bad exposure fails the statement with Python's
    message, a model without the role is refused with Python's message, an unknown keyword
    still by name; and ``dbt run`` on DuckDB builds the same table."""
    package = tmp_path / "package" / "sqlmetrics"
    done = run(tree, sys.executable, "-c", DBT_MODEL, str(package), SQLMETRICS_CACHE_DIR=str(tmp_path / "cache"))
    lines = done.stdout.splitlines()
    assert len(lines) == 5, done.stdout + done.stderr
    carried, table, bad, missing, unknown = lines
    # carried, with the roles the families add (the toy's among the other families')
    assert carried.startswith("True [") and "'exposure'" in carried, carried
    assert table == "[('a', 2, 0, 0.75), ('b', 2, 2, 2.0)]", done.stderr
    # the statement fails with Python's message (DuckDB names the failure its own way around it)
    assert "sqlmetrics: exposure column 'e' must be finite and >= 0 (for exposure_mean): 2 rows are not, e.g. -1" in bad
    assert missing == "sqlmetrics: exposure_mean reads the exposure column: pass exposure=<its column>"
    known = "relation, metrics, label, score, query, item, weight, by, prediction, class_scores, "
    assert unknown.startswith(f"sqlmetrics: evaluate: unknown argument 'exposur' (arguments: {known}"), unknown
    assert "exposure" in unknown.removesuffix(")").split("(arguments: ")[1].split(", "), unknown
    project = tmp_path / "project"
    (project / "models").mkdir(parents=True)
    (project / "seeds").mkdir()
    for name in ("dbt_project.yml", "profiles.yml"):
        shutil.copy(tree / "examples" / "dbt" / "project" / name, project / name)
    (project / "packages.yml").write_text(f"packages:\n  - local: {package}\n")
    (project / "seeds" / "rows.csv").write_text(DBT_ROWS)
    (project / "models" / "exposure_metrics.sql").write_text(DBT_MODEL_SQL)
    env = {
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_LOG_PATH": str(tmp_path / "logs"),
        "DBT_TARGET_PATH": str(tmp_path / "target"),
        "SQLMETRICS_DBT_DUCKDB": str(tmp_path / "dbt.duckdb"),
    }
    for step in ("deps", "seed", "run"):
        built = run(project, sys.executable, "-m", "dbt.cli.main", step, "--project-dir", str(project),
                    "--profiles-dir", str(project), **env)  # fmt: skip
        assert built.returncode == 0, built.stdout[-4000:]
    with duckdb.connect(str(tmp_path / "dbt.duckdb"), read_only=True) as con:
        table = con.sql("SELECT * FROM main.exposure_metrics ORDER BY g").fetchall()
    assert table == [("a", 2, 0, 0.75), ("b", 2, 2, 2.0)]


# --- the registry's reading of the declarations, in this tree -----------------------------


def test_the_roles_are_the_cores_and_each_familys_in_keyword_order():
    """``registry.roles()``: the core's roles, each family's placed ``after`` the role it
    names (multiclass's prediction after score, ranking's judgments after weight), in
    the order every public signature writes them (``tests/test_public_signatures.py``)."""
    assert [role.name for role in registry.roles()][:8] == [
        "label", "score", "prediction", "query", "item", "weight", "judgments", "class_scores",
    ]  # fmt: skip
    assert registry.families()["multiclass"].roles[0].name == "prediction"
    assert not any(role.generic for role in registry.roles()[:8])  # the core reads these with code of its own


def declared(monkeypatch, *families: Family) -> tuple[Role, ...]:
    """``registry.roles()`` read afresh from ``families`` alone."""
    monkeypatch.setattr(registry, "families", lambda: {family.name: family for family in families})
    return registry.roles.__wrapped__()


def test_a_new_role_without_a_place_comes_last_and_a_placed_one_after_its_anchor(monkeypatch):
    toy = Family("toy", roles=(Role("exposure", "a number >= 0"), Role("treatment", "0 or 1", after="score")))
    names = [role.name for role in declared(monkeypatch, toy)]
    assert names == ["label", "score", "treatment", "query", "item", "weight", "exposure"]


@pytest.mark.parametrize(
    "roles, message",
    [
        ((Role("label", "again"),), "role 'label' is declared twice"),
        (
            (Role("exposure", "a number", after="nowhere"),),
            "role 'exposure' is declared after 'nowhere', which is no role",
        ),
    ],
)
def test_a_family_authors_mistake_is_named(monkeypatch, roles, message):
    with pytest.raises(RuntimeError, match=message):
        declared(monkeypatch, Family("toy", roles=roles))


def test_a_metric_needing_a_role_no_family_declares_is_refused():
    spec = dataclasses.replace(registry.get("mae"), needs=("label", "score", "exposure"))
    with pytest.raises(RuntimeError, match="metric 'mae' needs the role 'exposure', which no family declares"):
        registry._declared(spec)
