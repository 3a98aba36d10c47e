"""The dbt package (``sqlmetrics dbt``): generated from sql/ (the committed copy is what the
generator writes now), one statement that reads the source once, the same table as
``sm.evaluate`` (models rendered with jinja2 and executed on DuckDB; in the engines tier,
``dbt run`` on dbt-duckdb and dbt-postgres over the whole carried catalog), bad data
failing the model with Python's message, and an unknown metric refused by name."""

from __future__ import annotations

import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
from importlib.resources.abc import Traversable
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from dbt_render import CompilerError, evaluate_sql

import sqlmetrics as sm
from sqlmetrics import cli
from sqlmetrics.dbt import package as dbt_package
from sqlmetrics.dbt.package import DBT_DIALECTS, MARKER, cache_folder, carried, generator_key, write_package
from sqlmetrics.sqltext import templates

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "examples" / "dbt" / "sqlmetrics"
PROJECT = ROOT / "examples" / "dbt" / "project"
RELATION = {"spark": "`impressions`", "bigquery": "`impressions`"}


def test_the_committed_package_is_what_the_generator_writes(generated):
    """Regenerated (every macro checked against the composer as it is written: the module's
    one generation, ``generated``), the package is the committed copy, file for file; and
    it stays small."""
    written = sorted(p.relative_to(generated) for p in generated.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(PACKAGE) for p in PACKAGE.rglob("*") if p.is_file())
    assert written == committed
    _, mismatch, errors = filecmp.cmpfiles(generated, PACKAGE, [str(p) for p in written], shallow=False)
    assert not mismatch and not errors, f"regenerate: sqlmetrics dbt --output {PACKAGE.relative_to(ROOT)}"
    assert sum(p.stat().st_size for p in generated.rglob("*") if p.is_file()) < 1_000_000


CLASS_SCORES = {"setosa": "p_setosa", "versicolor": "p_versicolor", "virginica": "p_virginica"}


def impressions(n: int = 500, seed: int = 0) -> pl.DataFrame:
    """Impressions with ties in the scores (two decimals), two slices, lists, graded relevance,
    a true and a predicted class (strings, the prediction right about half the time; a 0/1
    prediction of the click), a score per class (two decimals: ties), and a few NULLs."""
    rng = np.random.default_rng(seed)
    missing = rng.random((3, n)) < 0.03  # a few NULL scores, labels and queries: rows left out and counted
    frame = pl.DataFrame(
        {
            "day": rng.integers(0, 3, n),
            "country": rng.choice(["fr", "de"], n),
            "user_id": rng.integers(0, 40, n),
            "doc": np.arange(n),
            "click": rng.integers(0, 2, n).astype(float),
            "rel": rng.integers(0, 4, n).astype(float),
            "pctr": np.round(rng.random(n), 2),
            "wt": np.round(rng.random(n) * 2, 3),
        }
    )
    species = rng.choice(["setosa", "versicolor", "virginica"], n)
    right = rng.random(n) < 0.5
    frame = frame.with_columns(
        species=pl.Series(species),
        guess=pl.Series(np.where(right, species, rng.choice(["setosa", "versicolor", "virginica"], n))),
        hat=pl.Series(rng.integers(0, 2, n).astype(float)),
        **{column: pl.Series(np.round(rng.random(n), 2)) for column in CLASS_SCORES.values()},
    )
    nulls = {"pctr": missing[0], "click": missing[1], "user_id": missing[2], "guess": rng.random(n) < 0.03}
    nulls["p_virginica"] = rng.random(n) < 0.03
    frame = frame.with_columns(pl.when(pl.Series(m)).then(None).otherwise(pl.col(c)).alias(c) for c, m in nulls.items())
    # the off-policy family's roles: the logging and the target policy's propensities (in
    # (0, 1], two decimals) and the reward models' predictions, a few logged ones NULL
    off_policy = {name: np.round(rng.uniform(0.05, 1.0, n), 2) for name in ("prop", "target", "rm", "trm")}
    return frame.with_columns(**{name: pl.Series(values) for name, values in off_policy.items()}).with_columns(
        prop=pl.when(pl.Series(rng.random(n) < 0.03)).then(None).otherwise(pl.col("prop"))
    )


@pytest.fixture(scope="module")
def connection():
    con = duckdb.connect()
    con.register("rows", impressions().to_arrow())
    con.execute("CREATE TABLE impressions AS SELECT * FROM rows")
    return con


def assert_same_table(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    """Same columns, same values (floats to 1e-9)."""
    assert got.columns == expected.columns
    for column in expected.columns:
        left, right = got[column].to_list(), expected[column].to_list()
        if expected[column].dtype.is_float():
            np.testing.assert_allclose(
                np.array(left, dtype=float), np.array(right, dtype=float), rtol=1e-9, atol=1e-12, err_msg=column
            )
        else:
            assert [str(v) for v in left] == [str(v) for v in right], column


def model_table(con, **call) -> pl.DataFrame:
    return con.sql(evaluate_sql(PACKAGE, "duckdb", '"impressions"', **call)).pl()


def python_table(rows: pl.DataFrame, metrics: list[str], **call) -> pl.DataFrame:
    """sm.evaluate of the same names (routed as the model routes them: with a prediction
    column, 'f1' is multiclass_f1)."""
    return sm.evaluate(rows, metrics, **call)


def one_metric_call(name: str) -> dict:
    """A call of one carried metric, with two slices, a weight where the metric takes one."""
    family = next(s.family for s in carried() if s.name == name)
    metric = name.replace("@k", "@5")
    if family == "multiclass":
        scores = next(s.needs for s in carried() if s.name == name)[-1]
        given = dict(class_scores=CLASS_SCORES) if scores == "class_scores" else dict(prediction="guess")
        return dict(metrics=[metric], label="species", weight="wt", by=["day", "country"], **given)
    if family == "ranking":
        return dict(metrics=[metric], label="rel", score="pctr", query="user_id", by=["day", "country"])
    if family == "off_policy":  # each role a family adds, by its keyword
        roles = dict(propensity="prop", target_propensity="target", reward_model="rm", target_reward_model="trm")
        return dict(metrics=[metric], label="click", weight="wt", by=["day", "country"], **roles)
    label = "rel" if family == "regression" else "click"
    return dict(metrics=[metric], label=label, score="pctr", query="user_id", weight="wt", by=["day", "country"])


@pytest.mark.parametrize("name", [spec.name for spec in carried()])
def test_each_carried_metric_is_evaluates_table(connection, name):
    call = one_metric_call(name)
    rows = impressions()
    assert_same_table(model_table(connection, **call), python_table(rows, **call))


MULTICLASS = dict(
    metrics=[
        "accuracy",
        "f1",
        "f1:average=weighted",
        "fbeta:beta=2:average=micro",
        "precision:average=weighted",
        "recall",
        "mcc",
        "balanced_accuracy",
        "cohen_kappa",
        "cohen_kappa:weights=quadratic",
        "multiclass_precision:average=micro",
    ],
    label="species",
    prediction="guess",
    weight="wt",
    by=["day", "country"],
)

ONE_VS_REST = dict(
    metrics=["auc", "auc:average=weighted", "average_precision", "multiclass_average_precision:average=weighted"],
    label="species",
    class_scores=CLASS_SCORES,
    weight="wt",
    by=["day", "country"],
)

CALLS = [
    dict(metrics=["auc"], label="click", score="pctr"),
    dict(
        metrics=[
            "auc",
            "logloss",
            "brier",
            "calibration",
            "f1",
            "fbeta:beta=2:threshold=0.3",
            "average_precision",
            "gauc",
            "gauc:weighting=uniform",
            "tp",
            "fp",
            "tn",
            "fn",
            "mcc",
        ],
        label="click",
        score="pctr",
        query="user_id",
        by=["day", "country"],
        weight="wt",
    ),
    dict(
        metrics=["mae", "rmse", "r2", "mape", "median_absolute_error", "max_error"], label="rel", score="pctr", by="day"
    ),
    dict(
        metrics=[
            "ndcg@10",
            "mrr",
            "map",
            "hit_rate@3",
            "ndcg:gain=linear:ties=pessimistic",
            "precision@5",
            "recall@5",
            "err",
            "ndcg@3:empty=zero:min_relevance=2",
            "hit_rate@3:average=micro",
            "mrr:ties=optimistic",
        ],
        label="rel",
        score="pctr",
        query="user_id",
        by=["day"],
    ),
    dict(metrics=["ndcg@5:ties=item", "map:ties=item"], label="rel", score="pctr", query="user_id", item="doc"),
    dict(metrics=["auc", "mae"], label="click", score="pctr", weight="wt"),
    MULTICLASS,
    dict(metrics=["f1", "cohen_kappa:weights=linear"], label="species", prediction="guess"),
    # binary and multi-class metrics of one label: the click, and a 0/1 predicted class
    dict(metrics=["auc", "logloss", "f1:average=micro", "mcc", "mae"], label="click", score="pctr", prediction="hat"),
    ONE_VS_REST,
    dict(
        metrics=["auc", "average_precision:average=weighted", "f1", "accuracy"],
        label="species",
        prediction="guess",
        class_scores=CLASS_SCORES,
    ),  # fmt: skip
    # integer classes: relevance 0..3 (a float label), its scores the click's and others
    dict(metrics=["auc", "average_precision"], label="rel", class_scores={0: "pctr", 1: "p_setosa", 2: "hat", 3: "wt"}),
]


@pytest.mark.parametrize("call", CALLS, ids=lambda call: ",".join(call["metrics"][:3]))
def test_a_model_of_many_metrics_is_evaluates_table(connection, call):
    """Several metrics (shared steps, parameters, weights, slices, tie policies) in one model."""
    assert_same_table(model_table(connection, **call), python_table(impressions(), **call))


@pytest.mark.parametrize("dialect", DBT_DIALECTS)
def test_a_model_is_one_statement_reading_the_source_once(dialect):
    call = CALLS[1] | {"metrics": [*CALLS[1]["metrics"], "mae"]}
    relation = RELATION.get(dialect, '"impressions"')
    sql = evaluate_sql(PACKAGE, dialect, relation, **call)
    assert sql.count(relation) == 1
    assert sql.lstrip().startswith("WITH input AS (")
    for metric in ("m_auc AS (", "m_fbeta_beta_2_threshold_0p3 AS (", "m_gauc_uniform AS (", "m_mae AS ("):
        assert sql.count(metric) == 1, metric


@pytest.mark.parametrize("dialect", DBT_DIALECTS)
def test_a_multiclass_model_is_one_statement_comparing_classes_as_they_are(dialect):
    """The true and the predicted class are read uncast (classes may be strings), the
    confusion matrix and the class counts are taken once for every metric."""
    relation = RELATION.get(dialect, '"impressions"')
    sql = evaluate_sql(PACKAGE, dialect, relation, **MULTICLASS)
    quoted = "`{}`" if dialect in ("spark", "bigquery") else '"{}"'
    assert sql.count(relation) == 1
    assert f"{quoted.format('species')} AS true_class" in sql
    assert f"{quoted.format('guess')} AS predicted_class" in sql
    assert not re.search(r" AS (label|score)\b", sql)  # no metric reads them as numbers
    for step in ("class_confusion AS (", "class_counts AS (", "m_f1_weighted AS (", "m_cohen_kappa_quadratic AS ("):
        assert sql.count(step) == 1, step


def test_bad_data_fails_the_statement_with_pythons_message(connection):
    """A label of 2 for auc (rel is 0..3): the statement fails saying what sm.evaluate says."""
    call = dict(metrics=["auc", "logloss"], label="rel", score="pctr", by="day")
    with pytest.raises(sm.SqlMetricsError) as python:
        python_table(impressions(), **call)
    with pytest.raises(duckdb.Error) as model:
        model_table(connection, **call)
    assert str(python.value).splitlines()[0] in str(model.value)


def test_bad_data_of_a_call_mixing_scores_and_classes_names_the_metrics_reading_the_score(connection):
    """A NaN score with auc and a multi-class f1: the rule is auc's alone, as Python says."""
    nan = "CASE WHEN doc = 7 THEN 'NaN'::DOUBLE ELSE pctr END AS pctr"
    connection.execute(f"CREATE OR REPLACE TABLE nan_scores AS SELECT * REPLACE ({nan}) FROM impressions")
    call = dict(metrics=["auc", "f1"], label="click", score="pctr", prediction="hat")
    rows = connection.sql("SELECT * FROM nan_scores").pl()
    with pytest.raises(sm.SqlMetricsError, match=r"\(for auc\)") as python:
        python_table(rows, **call)
    with pytest.raises(duckdb.Error) as model:
        connection.sql(evaluate_sql(PACKAGE, "duckdb", '"nan_scores"', **call)).fetchall()
    assert str(python.value).splitlines()[0] in str(model.value)


def test_a_multiclass_metric_without_a_prediction_is_refused_with_pythons_message():
    call = dict(metrics=["multiclass_f1"], label="species")
    with pytest.raises(sm.SqlMetricsError) as python:
        python_table(impressions(), **call)
    with pytest.raises(CompilerError) as model:
        evaluate_sql(PACKAGE, "duckdb", '"t"', **call)
    assert str(python.value) in str(model.value)
    with pytest.raises(CompilerError, match="multiclass_f1: a multi-class metric"):  # a parameter only it has
        evaluate_sql(PACKAGE, "duckdb", '"t"', metrics=["f1:average=weighted"], label="species")


@pytest.mark.parametrize(
    "table, class_scores",
    [
        ("impressions", {"setosa": "p_setosa", "versicolor": "p_versicolor"}),  # virginica is a label of no score
        ("nan_class_scores", CLASS_SCORES),  # a NaN score of versicolor
    ],
)
def test_bad_class_scores_fail_the_statement_with_pythons_message(connection, table, class_scores):
    nan = "CASE WHEN doc = 7 THEN 'NaN'::DOUBLE ELSE p_versicolor END AS p_versicolor"
    connection.execute(f"CREATE OR REPLACE TABLE nan_class_scores AS SELECT * REPLACE ({nan}) FROM impressions")
    call = dict(metrics=["auc"], label="species", class_scores=class_scores)
    with pytest.raises(sm.SqlMetricsError) as python:
        python_table(connection.sql(f"SELECT * FROM {table}").pl(), **call)
    with pytest.raises(duckdb.Error) as model:
        connection.sql(evaluate_sql(PACKAGE, "duckdb", f'"{table}"', **call)).fetchall()
    assert str(python.value).splitlines()[0] in str(model.value)


def test_a_one_vs_rest_metric_without_class_scores_is_refused_with_pythons_message():
    with pytest.raises(sm.SqlMetricsError) as python:
        python_table(impressions(), metrics=["multiclass_auc"], label="species")
    with pytest.raises(CompilerError) as model:
        evaluate_sql(PACKAGE, "duckdb", '"t"', metrics=["multiclass_auc"], label="species")
    assert str(python.value).split(" or ")[0] in str(model.value)
    with pytest.raises(CompilerError, match="a class of class_scores must be a string or an integer"):
        evaluate_sql(PACKAGE, "duckdb", '"t"', metrics=["auc"], label="rel", class_scores={0.5: "pctr", 1: "wt"})


@pytest.mark.parametrize("extra", [dict(ci=0.95), dict(ci=0.95, ci_method="bootstrap", resamples=500)])
def test_intervals_are_refused_saying_the_package_does_not_carry_them(extra):
    with pytest.raises(CompilerError, match=r"intervals \(ci=\) are not carried by the dbt package"):
        evaluate_sql(PACKAGE, "duckdb", '"t"', metrics=["auc"], label="click", score="pctr", **extra)


def test_an_unknown_argument_is_refused_by_name():
    with pytest.raises(CompilerError, match="evaluate: unknown argument 'wieght' "):
        evaluate_sql(PACKAGE, "duckdb", '"t"', metrics=["auc"], label="click", score="pctr", wieght="wt")


def test_an_unknown_metric_is_refused_by_name():
    """The package carries every registered metric but those it leaves out saying why (a
    family's role it does not bind, a step it does not write: the next tests): a name it
    lacks is no metric."""
    assert {spec.name for spec in carried()} == set(sm.registry()) - set(dbt_package.left_out())
    with pytest.raises(CompilerError, match="unknown metric 'aucc' "):
        evaluate_sql(PACKAGE, "duckdb", '"t"', metrics=["auc", "aucc"], label="click", score="pctr")
    with pytest.raises(CompilerError, match="ndcg: parameter 'gain' must be one of"):
        evaluate_sql(PACKAGE, "duckdb", '"t"', metrics=["ndcg:gain=cubic"], label="rel", score="pctr", query="q")


def test_a_metric_whose_base_sums_depend_on_its_parameters_is_left_out_saying_why():
    """A metric reading a step whose sums in base depend on its parameters (the off-policy
    caps: ``Intermediate.base_aggregates`` a function) is not carried: the catalog names it
    with why, and a model asking for it is refused with that reason, not as an unknown
    metric; the family's other metrics are carried, their roles bound by keyword
    (``test_each_carried_metric_is_evaluates_table``)."""
    why = dbt_package.left_out()["clipped_ips"]
    assert why.startswith("it reads the step 'clipped_sums', whose sums in base depend on its parameters")
    assert "ips" in {spec.name for spec in carried()}
    roles = dict(propensity="prop", target_propensity="target")
    with pytest.raises(CompilerError) as refused:
        evaluate_sql(PACKAGE, "duckdb", '"t"', metrics=["ips", "clipped_ips"], label="click", **roles)
    assert f"clipped_ips is not carried by the dbt package: {why}" in str(refused.value)


def test_a_metric_reading_a_step_the_package_does_not_write_is_left_out_saying_why():
    """The metrics of the calibration bins (ece, the reliability and resolution terms) read
    a step whose bins and strategy the package does not write as macros yet: the catalog
    names them with why, and a model asking for one is refused with that reason; the
    calibration metrics of the score histogram (ne, rig, the uncertainty terms) are carried."""
    left_out = dbt_package.left_out()
    binned = ["brier_reliability", "brier_resolution", "ece", "logloss_reliability", "logloss_resolution"]
    assert [name for name in binned if name in left_out] == binned
    assert {"ne", "rig", "brier_uncertainty", "logloss_uncertainty"} <= {spec.name for spec in carried()}
    with pytest.raises(CompilerError) as refused:
        evaluate_sql(PACKAGE, "duckdb", '"t"', metrics=["auc", "ece"], label="click", score="pctr")
    assert "ece is not carried by the dbt package: it reads the step 'calibration_bins'" in str(refused.value)


# --- sqlmetrics dbt --output DIR: new, empty, or its own package; never through a link


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A package the generator wrote, not read from a cache (copied by each test that
    changes it)."""
    folder = tmp_path_factory.mktemp("generated") / "sqlmetrics"
    write_package(folder, use_cache=False)
    return folder


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch) -> Path:
    """Each test's own cache of generated packages (never the user's)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SQLMETRICS_CACHE_DIR", str(folder))
    return folder


def write_dbt(capsys, output) -> tuple[int, str]:
    """``sqlmetrics dbt --output <output>``: its exit status and stderr."""
    code = cli.main(["dbt", "--output", str(output)])
    return code, capsys.readouterr().err


def assert_refused(code: int, err: str, *fragments: str) -> None:
    """Status 1 and one line, the library's refusal (no traceback, no raw OS error)."""
    assert code == 1 and "Traceback" not in err and "Errno" not in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("sqlmetrics: error: "), err
    for fragment in fragments:
        assert fragment in err, err


def tree(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` by its path, with its text (a link as where it points)."""
    return {
        str(path.relative_to(folder)): f"-> {os.readlink(path)}" if path.is_symlink() else path.read_text()
        for path in sorted(folder.rglob("*"))
        if path.is_symlink() or path.is_file()
    }


def test_a_folder_of_other_files_is_refused_and_left_as_it_was(tmp_path, capsys, monkeypatch):
    """`--output .` in a dbt project overwrote its dbt_project.yml, README.md and a macro."""
    project = tmp_path / "project"
    (project / "macros").mkdir(parents=True)
    mine = {"README.md": "mine\n", "dbt_project.yml": "name: mine\n", "macros/evaluate.sql": "{# mine #}\n"}
    for name, text in mine.items():
        (project / name).write_text(text)
    monkeypatch.chdir(project)
    code, err = write_dbt(capsys, ".")
    assert_refused(code, err, "folder '.' is not empty (3 entries: README.md, dbt_project.yml, macros)", MARKER)
    assert tree(project) == mine


@pytest.mark.parametrize("blank", ["", " ", "\t"])
def test_an_empty_path_is_refused_writing_nothing(tmp_path, capsys, monkeypatch, blank):
    """`--output ""` wrote the package into the working directory; `--output " "` into a
    new folder named by a blank (the command line's other paths refuse blanks as empty)."""
    monkeypatch.chdir(tmp_path)
    code, err = write_dbt(capsys, blank)
    assert_refused(code, err, "the dbt package's folder is an empty path")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_of_one_other_file_is_refused_in_the_singular(tmp_path, capsys):
    """The refusal said '(1 entries: dbt_project.yml)'."""
    (tmp_path / "dbt_project.yml").write_text("name: mine\n")
    code, err = write_dbt(capsys, tmp_path)
    assert_refused(code, err, "is not empty (1 entry: dbt_project.yml) and holds no package")


def test_a_symbolic_link_is_refused_and_not_followed(tmp_path, capsys, generated):
    """A link DIR/README.md -> ../x was followed and wrote outside DIR; so were a link as
    DIR and as DIR/macros."""
    package = tmp_path / "package"
    shutil.copytree(generated, package)
    outside = tmp_path / "x"
    outside.write_text("outside\n")
    (package / "README.md").unlink()
    (package / "README.md").symlink_to("../x")
    code, err = write_dbt(capsys, package)
    assert_refused(code, err, f"'{package / 'README.md'}' is a symbolic link (to '../x')")
    assert outside.read_text() == "outside\n"

    (package / "README.md").unlink()
    macros, elsewhere = package / "macros", tmp_path / "elsewhere"
    shutil.move(macros, elsewhere)
    macros.symlink_to(elsewhere)
    before = tree(elsewhere)
    code, err = write_dbt(capsys, package)
    assert_refused(code, err, f"'{macros}' is a symbolic link (to '{elsewhere}')")
    assert tree(elsewhere) == before

    empty, link = tmp_path / "empty", tmp_path / "link"
    empty.mkdir()
    link.symlink_to(empty)
    for output in (link, f"{link}/"):
        code, err = write_dbt(capsys, output)
        assert_refused(code, err, f"the dbt package's folder '{output}' is a symbolic link (to '{empty}')")
    assert list(empty.iterdir()) == []


def test_a_file_where_a_folder_goes_a_folder_where_a_file_goes_and_an_unwritable_path_are_refused(
    tmp_path, capsys, generated
):
    """They gave the OS's raw errors (File exists, Is a directory, Not a directory)."""
    a_file = tmp_path / "a_file"
    a_file.write_text("mine\n")
    code, err = write_dbt(capsys, a_file)
    assert_refused(code, err, f"the dbt package's folder '{a_file}' is a file, not a folder")
    code, err = write_dbt(capsys, a_file / "package")
    assert_refused(code, err, f"cannot write the dbt package to '{a_file / 'package'}': Not a directory")
    assert a_file.read_text() == "mine\n"

    package = tmp_path / "package"
    shutil.copytree(generated, package)
    (package / "README.md").unlink()
    (package / "README.md").mkdir()
    code, err = write_dbt(capsys, package)
    assert_refused(code, err, f"'{package / 'README.md'}' is a folder where the dbt package has a file")
    with pytest.raises(sm.SqlMetricsError, match="is a folder where the dbt package has a file"):
        write_package(package)


def test_regenerating_a_package_replaces_its_files(tmp_path, capsys, generated):
    """A package written before is written again in place: its files replaced (an edit
    undone), another file of the user's left, no temporary file left behind."""
    package = tmp_path / "package"
    shutil.copytree(generated, package)
    (package / "README.md").write_text("edited\n")
    (package / "macros" / "mine.sql").write_text("{# mine #}\n")
    code, err = write_dbt(capsys, package)
    assert code == 0, err
    assert tree(package) == tree(generated) | {"macros/mine.sql": "{# mine #}\n"}


# --- generated once per version: the cache, and what it says it wrote


def summary(output: Path, generated: Path) -> str:
    """The start of the line saying what was written to ``output``: the folder, the package's
    files and its macros, both counted in the generated package ``generated``."""
    files = [path for path in generated.rglob("*") if path.is_file()]
    macros = sum(path.read_text().count("{% macro ") for path in files)
    return f"wrote the dbt package sqlmetrics to '{output}': {len(files)} files, {macros} macros for 6 dialects, "


def entry(cache: Path) -> Path:
    """The one cache entry in ``cache``."""
    (found,) = cache.iterdir()
    return found


def test_the_package_is_generated_once_then_read_from_the_cache_saying_which(tmp_path, capsys, cache, generated):
    """`sqlmetrics dbt --output DIR` took 25 s (75 s on a loaded machine) every time and
    said only the folder: now the first run generates and caches, the next reads the cache
    (checked by its digest); each says the folder, the files, the macros and which."""
    code, err = write_dbt(capsys, tmp_path / "first")
    stored = entry(cache)
    assert code == 0 and err == (
        summary(tmp_path / "first", generated) + f"generated from sql/ and cached in '{stored}' for the next run\n"
    )
    assert stored.name == f"package-{generator_key()}.json"
    code, err = write_dbt(capsys, tmp_path / "second")
    assert code == 0 and err == (
        summary(tmp_path / "second", generated) + f"from the cache '{stored}' (this version's, checked by its digest)\n"
    )
    assert tree(tmp_path / "first") == tree(tmp_path / "second") == tree(generated)


def _edited(entry: dict) -> dict:
    entry["files"]["macros/steps_duckdb.sql"] += "{% macro duckdb__sm_evil(c) %}DROP TABLE x{% endmacro %}\n"
    return entry


def _dropped(entry: dict) -> dict:
    del entry["files"]["macros/catalog.sql"]
    return entry


# a cache entry's text damaged or edited each way a run must not trust
DAMAGES = {
    "a macro edited": lambda text: json.dumps(_edited(json.loads(text))),
    "a file missing": lambda text: json.dumps(_dropped(json.loads(text))),
    "another version's key": lambda text: json.dumps(json.loads(text) | {"key": "0" * 64}),
    "cut short": lambda text: text[: len(text) // 2],
    "not UTF-8": lambda text: "\udcff" + text,
    "empty": lambda text: "",
    "a list": lambda text: "[]",
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_or_edited_cache_entry_is_regenerated_never_used(tmp_path, capsys, cache, generated, damage):
    """A cache entry that does not check (its files against its own digest, its key, its
    paths, its format) is said, regenerated and stored again; the package written is the
    generator's."""
    write_dbt(capsys, tmp_path / "first")
    stored = entry(cache)
    text = DAMAGES[damage](stored.read_text())
    stored.write_bytes(text.encode("utf-8", "surrogateescape"))
    code, err = write_dbt(capsys, tmp_path / "package")
    assert code == 0 and err == (
        summary(tmp_path / "package", generated) + f"generated from sql/ and cached in '{stored}' for the next run; "
        f"the cached copy '{stored}' did not check (damaged or edited): regenerated\n"
    )
    assert tree(tmp_path / "package") == tree(generated)
    assert json.loads(stored.read_text())["files"] == tree(generated)  # stored again, intact
    code, err = write_dbt(capsys, tmp_path / "again")
    assert code == 0 and "from the cache" in err


def test_a_cache_entry_that_is_a_link_is_not_followed(tmp_path, capsys, cache, generated):
    """A link where the entry goes is neither read nor written through: replaced by the entry."""
    write_dbt(capsys, tmp_path / "first")
    stored = entry(cache)
    elsewhere, text = tmp_path / "elsewhere.json", stored.read_text()
    elsewhere.write_text(text)
    stored.unlink()
    stored.symlink_to(elsewhere)
    code, err = write_dbt(capsys, tmp_path / "package")
    assert (
        code == 0 and f"the cached copy '{stored}' could not be read, regenerated: Too many levels of symbolic" in err
    )
    assert not stored.is_symlink() and json.loads(stored.read_text())["files"] == tree(generated)
    assert elsewhere.read_text() == text
    assert tree(tmp_path / "package") == tree(generated)


def test_a_cache_that_cannot_be_written_still_writes_the_package(tmp_path, capsys, monkeypatch, generated):
    """The cache is a convenience: a cache folder the system refuses is said, not an error."""
    blocked = tmp_path / "a_file"
    blocked.write_text("mine\n")
    monkeypatch.setenv("SQLMETRICS_CACHE_DIR", str(blocked / "cache"))
    code, err = write_dbt(capsys, tmp_path / "package")
    assert code == 0 and err == (
        summary(tmp_path / "package", generated)
        + f"generated from sql/; not cached: Not a directory ({blocked / 'cache'})\n"
    )
    assert tree(tmp_path / "package") == tree(generated) and blocked.read_text() == "mine\n"


def test_the_cache_keeps_the_newest_versions_entries_and_nothing_else_of_its_folder(tmp_path, capsys, cache, generated):
    """Each version writes its own entry: the four newest are kept, older ones removed, and
    a file that is no entry left alone."""
    cache.mkdir()
    old = [cache / f"package-{i:064x}.json" for i in range(5)]
    for age, path in enumerate(old):
        path.write_text("{}")
        os.utime(path, (1_000_000 + age, 1_000_000 + age))  # old[4] the newest
    (cache / "notes.txt").write_text("mine\n")
    write_dbt(capsys, tmp_path / "package")
    kept = {path.name for path in cache.iterdir()}
    assert kept == {f"package-{generator_key()}.json", *(path.name for path in old[2:]), "notes.txt"}


def copy_folder(folder: Traversable, target: Path) -> None:
    """``folder`` (a path, or an installed package's resources) copied to ``target``."""
    target.mkdir()
    for entry in folder.iterdir():
        if entry.is_dir():
            copy_folder(entry, target / entry.name)
        else:
            (target / entry.name).write_bytes(entry.read_bytes())


def test_the_cache_key_changes_with_the_templates_the_code_and_sqlglot(tmp_path, monkeypatch):
    """A package is the generator's of its inputs: another template, another module of the
    package or another sqlglot is another entry."""
    key = generator_key()
    sql = tmp_path / "sql"
    copy_folder(templates.root(), sql)  # installed, the templates are a namespace package's folder, not a path
    with monkeypatch.context() as patch:
        patch.setattr(templates, "root", lambda: sql)
        assert generator_key() == key
        auc = sql / "classification" / "auc.sql"
        auc.write_text(auc.read_text() + "\n")
        assert generator_key() != key
    with monkeypatch.context() as patch:
        patch.setattr(dbt_package.sqlglot, "__version__", "0.0.0")
        assert generator_key() != key
    package = tmp_path / "package"
    shutil.copytree(Path(dbt_package.__file__).parent.parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(dbt_package, "__file__", str(package / "dbt" / "package.py"))
    assert generator_key() == key
    (package / "registry.py").write_text((package / "registry.py").read_text() + "# another version\n")
    assert generator_key() != key


def test_the_cache_folder_is_the_users(monkeypatch, tmp_path):
    """$SQLMETRICS_CACHE_DIR, else $XDG_CACHE_HOME (absolute), else ~/.cache (on Linux)."""
    monkeypatch.setenv("SQLMETRICS_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_folder() == tmp_path / "mine"
    monkeypatch.delenv("SQLMETRICS_CACHE_DIR")
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder() == tmp_path / "xdg" / "sqlmetrics" / "dbt"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_folder() == tmp_path / "home" / ".cache" / "sqlmetrics" / "dbt"


# --- parameters and repeats: refused when the model compiles, with Python's message

REFUSED = [
    # a value that is no number, or breaks its parameter's rule (Jinja's |float read 'abc' as 0)
    ["precision:threshold=abc"],
    ["precision:threshold=nan"],
    ["precision:threshold=1e400"],  # inf
    ["precision:threshold=0x10"],
    ["fbeta:beta=-1"],
    ["fbeta:beta=0"],
    ["ndcg:min_relevance=0"],
    ["err:max_relevance=961"],
    ["gauc:weighting=users"],
    ["err:ties=average"],  # a value a sibling takes, refused with the reason
    # k: not an integer >= 1 (NaN and ndcg_at_2 before), other digits than ASCII
    ["ndcg@abc"],
    ["ndcg@0"],
    ["ndcg@-1"],
    ["ndcg@2.7"],
    ["ndcg@"],
    ["ndcg@١٠"],
    ["ndcg@1_0"],
    ["hit_rate@٣"],
    ["ndcg:k=2.5"],
    ["ndcg:k=abc"],
    ["ndcg@99999999999999999999"],  # past a 64-bit integer
    ["fbeta:beta=1_0"],
    ["precision@k"],  # k required
    # a spec written wrong, a parameter given twice (the last was kept)
    [":beta=2"],
    ["fbeta::beta=2"],
    ["fbeta:beta"],
    ["fbeta:beta=2:beta=3"],
    ["ndcg@5:k=3"],
    ["f1:average=weighted:threshold=0.3"],  # a parameter of the other form: said so
    # a metric asked twice, under one name or two spellings of one call
    ["auc", "auc"],
    ["ndcg@10", "ndcg:k=10"],
    ["fbeta:beta=2", "fbeta:beta=2.0"],
    ["logloss", "auc", "logloss"],
]


@pytest.mark.parametrize("metrics", REFUSED, ids=lambda metrics: ",".join(metrics))
def test_a_bad_parameter_or_a_metric_asked_twice_is_refused_with_pythons_message(metrics):
    call = dict(metrics=metrics, label="rel", score="pctr", query="user_id")
    with pytest.raises(sm.SqlMetricsError) as python:
        python_table(impressions(20), **call)
    with pytest.raises(CompilerError) as model:
        evaluate_sql(PACKAGE, "duckdb", '"t"', **call)
    assert str(model.value) == f"sqlmetrics: {python.value}"


@pytest.mark.parametrize(
    "call",
    [
        dict(metrics=["auc"], by=["day", "day"]),  # a slice column twice
        dict(metrics=["auc"], by=["n_rows"]),  # a slice named like a result column
        dict(metrics=["auc", "logloss"], by=["day", "logloss"]),
        dict(metrics=["auc"], by=5),
        dict(metrics=["ndcg@5:ties=item"]),  # ties by item without item= (item NULL before)
        dict(metrics=["ndcg@5", "mrr"], weight="wt"),
    ],
    ids=str,
)
def test_a_bad_binding_is_refused_with_pythons_message(call):
    call = dict(label="rel", score="pctr", query="user_id") | call
    with pytest.raises(sm.SqlMetricsError) as python:
        python_table(impressions(20), **call)
    with pytest.raises(CompilerError) as model:
        evaluate_sql(PACKAGE, "duckdb", '"t"', **call)
    assert str(model.value) == f"sqlmetrics: {python.value}"


@pytest.mark.parametrize("metrics, shown", [(None, "None"), ([1], "1"), (["auc", ["ndcg@10"]], "['ndcg@10']")])
def test_metrics_that_are_no_names_are_refused_saying_so(metrics, shown):
    """They raised Jinja's own errors (None is not iterable, an int has no split)."""
    with pytest.raises(CompilerError, match=re.escape("sqlmetrics: metrics must be ") + ".*" + re.escape(shown)):
        evaluate_sql(PACKAGE, "duckdb", '"t"', metrics=metrics, label="click", score="pctr")


def test_an_unknown_parameter_is_refused_with_pythons_message_less_its_suggestion():
    """Python suggests the closest names (difflib); dbt's Jinja has no difflib."""
    call = dict(metrics=["ndcg:gian=linear"], label="rel", score="pctr", query="user_id")
    with pytest.raises(sm.SqlMetricsError, match="; did you mean 'gain'") as python:
        python_table(impressions(20), **call)
    with pytest.raises(CompilerError) as model:
        evaluate_sql(PACKAGE, "duckdb", '"t"', **call)
    assert str(model.value) == f"sqlmetrics: {python.value}".split("; did you mean")[0]


def test_the_numerals_python_reads_give_pythons_table(connection):
    """A k or a number written as Python reads it (a sign, spaces, an exponent, a point)
    is the same call in the model."""
    metrics = ["ndcg@ 3", "hit_rate@+2", "mrr:k=1e1", "map:k=4.0", "fbeta:beta=5.:threshold=.5"]
    call = dict(metrics=metrics, label="rel", score="pctr", query="user_id", by="day")
    rows = impressions().with_columns(pl.col("rel").clip(0, 1))  # fbeta reads a 0/1 label
    connection.register("clipped", rows.to_arrow())
    got = connection.sql(evaluate_sql(PACKAGE, "duckdb", "clipped", **call)).pl()
    assert_same_table(got, python_table(rows, **call))
    assert {"ndcg_at_3", "hit_rate_at_2", "mrr_at_10", "map_at_4", "fbeta_beta_5"} <= set(got.columns)


# --- dbt run: dbt-duckdb and dbt-postgres, the whole carried catalog

CATALOG_MODELS = {
    "multiclass": dict(
        metrics=[s.name for s in carried() if "prediction" in s.needs]
        + ["f1:average=weighted", "fbeta:beta=2:average=micro", "cohen_kappa:weights=quadratic"],
        label="species",
        prediction="guess",
        weight="wt",
        by=["country"],
    ),
    "one_vs_rest": ONE_VS_REST | dict(by=["country"]),
    "classification": dict(
        metrics=[s.name for s in carried() if s.family == "classification"] + ["fbeta:beta=2:threshold=0.3"],
        label="click",
        score="pctr",
        query="user_id",
        weight="wt",
        by=["day", "country"],
    ),
    "regression": dict(
        metrics=[s.name for s in carried() if s.family == "regression"], label="rel", score="pctr", by="country"
    ),
    "ranking": dict(
        metrics=[s.name.replace("@k", "@5") for s in carried() if s.family == "ranking"]
        + ["ndcg@10:gain=linear:ties=pessimistic", "hit_rate@3:average=micro", "map:empty=zero"],
        label="rel",
        score="pctr",
        query="user_id",
        by=["day"],
    ),
}


def model_sql(call: dict) -> str:
    args = ", ".join(f"{key}={value!r}" for key, value in call.items())
    return f"{{{{ config(materialized='table') }}}}\n{{{{ sqlmetrics.evaluate(ref('impressions'), {args}) }}}}\n"


def dbt(project: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "dbt.cli.main",
        *args,
        "--project-dir",
        str(project),
        "--profiles-dir",
        str(project),
    ]
    return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=900)


def project_with(tmp_path: Path, models: dict[str, str]) -> Path:
    """A copy of the example project (its package by absolute path) with ``models``."""
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("target", "logs", "dbt_packages", "*.duckdb"))
    (project / "packages.yml").write_text(f"packages:\n  - local: {PACKAGE}\n")
    for name, sql in models.items():
        (project / "models" / f"{name}.sql").write_text(sql)
    return project


def dbt_env(tmp_path: Path, **extra: str) -> dict:
    return {
        **os.environ,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_LOG_PATH": str(tmp_path / "logs"),
        "DBT_TARGET_PATH": str(tmp_path / "target"),
        "SQLMETRICS_DBT_DUCKDB": str(tmp_path / "dbt.duckdb"),
        **extra,
    }


def build(project: Path, env: dict, *target: str) -> None:
    for step in ("deps", "seed", "run"):
        done = dbt(project, step, *target, env=env)
        assert done.returncode == 0, done.stdout[-4000:]


def sorted_by(frame: pl.DataFrame, call: dict) -> pl.DataFrame:
    by = call.get("by") or []
    return frame.sort([by] if isinstance(by, str) else by) if by else frame


def example_models() -> dict[str, dict]:
    """The example project's models (examples/dbt/project/models), as calls."""
    impressions = dict(
        metrics=["auc", "gauc", "logloss", "ndcg@10"], label="click", score="pctr", query="user_id", by=["day"]
    )
    species = dict(
        metrics=["accuracy", "f1:average=weighted", "cohen_kappa", "auc"],
        label="species",
        prediction="guess",
        by=["country"],
        class_scores=CLASS_SCORES,
    )
    return {"impression_metrics": impressions, "species_metrics": species}


@pytest.mark.engines
def test_dbt_run_on_duckdb_builds_evaluates_tables(tmp_path):
    project = project_with(tmp_path, {name: model_sql(call) for name, call in CATALOG_MODELS.items()})
    build(project, dbt_env(tmp_path))
    with duckdb.connect(str(tmp_path / "dbt.duckdb"), read_only=True) as con:
        rows = con.sql("SELECT * FROM main.impressions").pl()
        for name, call in {**CATALOG_MODELS, **example_models()}.items():
            got = sorted_by(con.sql(f"SELECT * FROM main.{name}").pl(), call)
            assert_same_table(got, sorted_by(python_table(rows, **call), call))


@pytest.mark.engines
def test_dbt_run_on_postgres_builds_evaluates_tables(tmp_path):
    # .ci/lowest installs no PostgreSQL client (its floors are the cross-engine tier's business)
    psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL client: pip install '.[test]'")
    import postgres_server

    if postgres_server.binaries() is None:
        pytest.skip("PostgreSQL is not installed: apt-get install postgresql (.ci/run does)")
    project = project_with(tmp_path, {name: model_sql(call) for name, call in CATALOG_MODELS.items()})
    with postgres_server.server() as dsn:
        parts = dict(part.split("=", 1) for part in dsn.split())
        build(project, dbt_env(tmp_path, PGHOST=parts["host"], PGUSER=parts["user"]), "--target", "postgres")
        with psycopg.connect(dsn) as con:

            def table(name: str) -> pl.DataFrame:
                return pl.read_database(f"SELECT * FROM public.{name}", con)

            rows = table("impressions")
            for name, call in {**CATALOG_MODELS, **example_models()}.items():
                got = sorted_by(table(name), call)
                assert_same_table(got, sorted_by(python_table(rows, **call), call))


@pytest.mark.engines
def test_bad_data_fails_the_dbt_model_with_pythons_message(tmp_path):
    """A label of 2 for auc: dbt run fails, saying what sm.evaluate says."""
    project = project_with(tmp_path, {"bad": model_sql(dict(metrics=["auc"], label="rel", score="pctr"))})
    env = dbt_env(tmp_path)
    for step in ("deps", "seed"):
        assert dbt(project, step, env=env).returncode == 0
    done = dbt(project, "run", "--select", "bad", env=env)
    assert done.returncode != 0
    rows = pl.read_csv(PROJECT / "seeds" / "impressions.csv")
    with pytest.raises(sm.SqlMetricsError) as raised:
        sm.evaluate(rows, ["auc"], label="rel", score="pctr")
    assert str(raised.value).splitlines()[0] in done.stdout


@pytest.mark.engines
def test_intervals_fail_the_dbt_model_when_it_compiles(tmp_path):
    """dbt's own macros take the unknown keyword as jinja2 does: the model says intervals are not carried."""
    call = dict(metrics=["auc"], label="click", score="pctr", ci=0.95)
    project = project_with(tmp_path, {"with_ci": model_sql(call)})
    env = dbt_env(tmp_path)
    assert dbt(project, "deps", env=env).returncode == 0
    done = dbt(project, "compile", "--select", "with_ci", env=env)
    assert done.returncode != 0
    assert "intervals (ci=) are not carried by the dbt package" in done.stdout


@pytest.mark.engines
def test_a_bad_parameter_fails_the_dbt_model_when_it_compiles(tmp_path):
    """In dbt's own Jinja (its sandbox, its modules.re): each bad call fails compiling with
    Python's message, and the numerals Python reads compile."""
    spellings = dict(metrics=["ndcg@ 3", "mrr:k=1e1", "map:k=4.0", "fbeta:beta=5."], label="rel", score="pctr")
    project = project_with(tmp_path, {"spellings": model_sql(spellings | dict(query="user_id"))})
    env = dbt_env(tmp_path)
    assert dbt(project, "deps", env=env).returncode == 0
    done = dbt(project, "compile", env=env)
    assert done.returncode == 0, done.stdout[-4000:]
    bad = [
        dict(metrics=["precision:threshold=abc"], label="click"),  # threshold 0 before
        dict(metrics=["ndcg@١٠"], label="rel", query="user_id"),  # k = 10 before
        dict(metrics=["fbeta:beta=2:beta=3"], label="click"),  # the last kept before
        dict(metrics=["auc", "auc"], label="click"),
        dict(metrics=["auc"], label="click", by=["day", "day"]),
    ]
    for call in bad:
        call = call | dict(score="pctr")
        with pytest.raises(sm.SqlMetricsError) as python:
            python_table(impressions(20), **call)
        (project / "models" / "bad.sql").write_text(model_sql(call))
        done = dbt(project, "compile", "--select", "bad", env=env)
        assert done.returncode != 0
        assert f"sqlmetrics: {python.value}" in done.stdout, done.stdout[-4000:]
