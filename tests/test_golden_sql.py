"""Trino, BigQuery and Snowflake have no engine in the test run: the SQL written for
them is pinned in ``tests/golden/<dialect>/`` (each file read by eye once when it was
written), and every statement must parse back with sqlglot in its dialect. ClickHouse's
is pinned too (its rewrites are the most), though chdb runs it in the engines tier.

What is pinned says something on its own: per metric, only its own steps
(``<metric>.sql``: ``m_<metric>`` and the steps nested in it); per kind of call, once,
the shared scaffold (``_scaffold_<kind>.sql``: input, base, checks, the intermediates
and the final select of a call of every metric of that kind, the metrics' own steps
left out); and the steps of a roll-up's two statements of their own (``_state.sql``,
``_rollup.sql``). A change to a template rewrites its metric's files; a change to the
shared steps, the scaffolds. The rewrites of ``dialects.py`` have their own input -> expected
tables in ``tests/test_dialects.py``.

After a deliberate change to a template or to ``dialects.py``, rewrite the files with
``SQLMETRICS_UPDATE_GOLDEN=1 pytest tests/test_golden_sql.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel

import sqlmetrics as sm
from sqlmetrics.compose.rollup import COPIES_STEP, METAS_STEP, REPEATS_STEP, SHARED_STEP, STATE_REPEATS_STEP

GOLDEN = Path(__file__).resolve().parent / "golden"
DIALECTS = ("trino", "bigquery", "snowflake", "clickhouse")
UPDATE = os.environ.get("SQLMETRICS_UPDATE_GOLDEN") == "1"
CLASS_SCORES = {"cat": "p_cat", "dog": "p_dog", "fox": "p_fox"}


def kind(name: str) -> str:
    """The kind of call a metric belongs to: its family, multi-class metrics split by what
    they read (a predicted class or one score per class)."""
    spec = sm.registry()[name]
    if spec.family != "multiclass":
        return spec.family
    return "one_vs_rest" if "class_scores" in spec.needs else "multiclass"


KINDS = sorted({kind(name) for name in sm.registry()})


def roles(names: list[str]) -> dict:
    """The columns of a call of ``names``: sliced by two columns of a dotted table,
    weighted where every metric takes weights."""
    specs = [sm.registry()[name] for name in names]
    bound = {"label": "label", "score": "score", "by": ["day", "country"]}
    if all(spec.weighted for spec in specs):
        bound["weight"] = "weight"
    if any("query" in spec.needs for spec in specs):
        bound["query"] = "user_id"
    bound |= {role.name: role.name for spec in specs for role in spec.roles}  # the roles a family adds
    if specs[0].family == "multiclass":
        bound.pop("score")
        if "class_scores" in specs[0].needs:
            bound["class_scores"] = CLASS_SCORES
        else:
            bound["prediction"] = "predicted"
    return bound


def rendered(names: list[str], dialect: str) -> str:
    calls = [sm.metric(name.replace("@k", "@10")) for name in names]
    return sm.to_sql(calls, source="logs.impressions", dialect=dialect, **roles(names))


def parsed(sql: str, dialect: str) -> exp.Expression:
    """The statement parsed back in its dialect, which must not fail."""
    return sqlglot.parse_one(sql, read=dialect, error_level=ErrorLevel.RAISE)


def steps(sql: str, dialect: str, keep) -> str:
    """The statement's WITH steps whose name ``keep`` accepts, as the dialect writes them."""
    tree = parsed(sql, dialect)
    kept = [cte for cte in tree.args["with_"].expressions if keep(cte.alias)]
    return ",\n".join(cte.sql(dialect=dialect, pretty=True) for cte in kept) + "\n"


def metric_steps(name: str, dialect: str) -> str:
    step = f"m_{sm.metric(name.replace('@k', '@10')).column}"
    return steps(rendered([name], dialect), dialect, lambda alias: alias == step or alias.startswith(f"{step}_"))


def scaffold(call_kind: str, dialect: str) -> str:
    """The statement of a call of every metric of ``call_kind`` without the metrics' own
    steps (each metric has at least one)."""
    names = [name for name in sm.registry() if kind(name) == call_kind]
    tree = parsed(rendered(names, dialect), dialect)
    assert len([cte for cte in tree.find_all(exp.CTE) if cte.alias.startswith("m_")]) >= len(names)
    with_ = tree.args["with_"]
    with_.set("expressions", [cte for cte in with_.expressions if not cte.alias.startswith("m_")])
    return tree.sql(dialect=dialect, pretty=True) + "\n"


# A call whose states roll up (sums, the score histogram, a mean over queries), for the
# statements of a roll-up (``to_sql``'s ``state=True`` and ``rollup=True``).
ROLLED_UP = ["auc", "logloss", "calibration", "f1", "gauc"]
ROLLUP_KEYWORDS = ("state", "rollup")


def rollup_steps(keyword: str, dialect: str) -> str:
    """The statement of a state (``keyword`` "state") or of a roll-up without the steps
    pinned elsewhere: a state's rows, the UNION of its parts (its steps are the
    scaffold's and the metrics' templates); a roll-up's merged base, queries, means and
    refusals (not the intermediates and the metrics' own steps)."""
    call = {"label": "label", "score": "score", "weight": "weight", "query": "user_id", keyword: True}
    call["by"] = ["day", "country"] if keyword == "state" else "country"
    tree = parsed(sm.to_sql(ROLLED_UP, source="logs.states", dialect=dialect, **call), dialect)
    if keyword == "state":  # its parts' rows: the steps are the scaffold's and the metrics' templates
        tree.set("with_", None)
        return tree.sql(dialect=dialect, pretty=True) + "\n"
    own = {"base", "row_counts", METAS_STEP, COPIES_STEP, SHARED_STEP, STATE_REPEATS_STEP, REPEATS_STEP}
    own |= {f"{step}_{name}" for name in ROLLED_UP if sm.registry()[name].per_query for step in ("q", "m")}
    with_ = tree.args["with_"]
    with_.set("expressions", [cte for cte in with_.expressions if cte.alias in own])
    return tree.sql(dialect=dialect, pretty=True) + "\n"


def check(path: Path, text: str) -> None:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.read_text() == text, "regenerate with SQLMETRICS_UPDATE_GOLDEN=1 and review the diff"


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", sorted(sm.registry()))
def test_a_metrics_own_steps_match_the_reviewed_file(name, dialect):
    """Its statement parses back in the dialect, and its own steps are the reviewed ones."""
    check(GOLDEN / dialect / f"{name.replace('@', '_at_')}.sql", metric_steps(name, dialect))


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("call_kind", KINDS)
def test_the_shared_scaffold_matches_the_reviewed_file(call_kind, dialect):
    """A call of every metric of the kind parses back, has every metric's step, and
    shares the reviewed scaffold."""
    check(GOLDEN / dialect / f"_scaffold_{call_kind}.sql", scaffold(call_kind, dialect))


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("keyword", ROLLUP_KEYWORDS)
def test_the_statements_of_a_rollup_match_the_reviewed_file(keyword, dialect):
    """A state's and a roll-up's own steps (``sm.to_sql(..., state=True)``, ``rollup=True``),
    which no engine of the test run executes in these dialects."""
    check(GOLDEN / dialect / f"_{keyword}.sql", rollup_steps(keyword, dialect))


def test_no_reviewed_file_is_left_over():
    expected = {f"{name.replace('@', '_at_')}.sql" for name in sm.registry()}
    expected |= {f"_scaffold_{call_kind}.sql" for call_kind in KINDS}
    expected |= {f"_{keyword}.sql" for keyword in ROLLUP_KEYWORDS}
    for dialect in DIALECTS:
        found = {path.name for path in (GOLDEN / dialect).glob("*.sql")}
        if UPDATE:
            for stale in found - expected:
                (GOLDEN / dialect / stale).unlink()
            found &= expected
        assert found == expected, dialect
