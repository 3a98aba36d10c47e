"""The engines as records (``sqlmetrics/engines/record.py``): every engine answers one
``run`` signature and says what it supports; the callers ask the record, never the
engine's name (no ``engine ==``, ``engine in (...)`` or ``LOCAL_ENGINES`` membership test
outside ``sqlmetrics/engines/``, read from the source with ``ast``); an engine added as a
record is reached by every entry point, and refused by those it does not support with the
names of those that do."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

import polars as pl
import pytest

import sqlmetrics as sm
from sqlmetrics import engines
from sqlmetrics.engines.record import Engine, Run

PACKAGE = Path(sm.__file__).resolve().parent
FRAME = pl.DataFrame({"label": [0, 1, 1, 0], "score": [0.1, 0.8, 0.6, 0.3]})
# The comparisons that ask an engine's name rather than its record.
_ASKING = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def _names_an_engine(node: ast.AST) -> bool:
    """Whether ``node`` reads a name or attribute that names an engine (``engine``,
    ``args.engine``, ``LOCAL_ENGINES``, ``engine.name``)."""
    for part in ast.walk(node):
        name = part.id if isinstance(part, ast.Name) else part.attr if isinstance(part, ast.Attribute) else ""
        if "engine" in name.lower():
            return True
    return False


def engine_name_tests(root: Path) -> list[str]:
    """Every comparison (``==``, ``!=``, ``in``, ``not in``) and ``match`` on an engine
    outside ``root/engines/``, as ``path:line``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] == "engines":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Compare) and any(isinstance(op, _ASKING) for op in node.ops):
                asked = any(_names_an_engine(operand) for operand in (node.left, *node.comparators))
            elif isinstance(node, ast.Match):
                asked = _names_an_engine(node.subject)
            else:
                continue
            if asked:
                found.append((relative.as_posix(), node.lineno))
    return [f"{path}:{line}" for path, line in sorted(found)]


def test_no_module_outside_the_engines_asks_an_engine_its_name():
    """The callers ask the record (``engine.supports_states``, ``engine.run(...)``): there
    were 13 such comparisons in api.py, states.py, the curves, table_formats.py and
    engines/long_bootstrap.py, and two ``LOCAL_ENGINES`` membership tests."""
    assert engine_name_tests(PACKAGE) == []


def test_the_name_check_sees_each_way_of_asking(tmp_path):
    """The walk is seen to fail: on each kind of comparison, and not on what is no
    comparison of an engine (a dialect, ``engine=`` passed on, ``"engine" in args``)."""
    root = tmp_path / "pkg"
    files = {
        "api.py": """\
            def run(engine, dialect, args):
                if engine == "duckdb":  # 2
                    pass
                if "polars" != engine:  # 4
                    pass
                if engine not in LOCAL_ENGINES:  # 6
                    pass
                if dialect == "spark" or "engine" in args:  # a dialect; a key
                    pass
                return compute(engine=engine, dialect=dialect)
            """,
        "cli/output.py": """\
            def shown(args, record):
                told = "" if args.engine in ("duckdb",) else "no share"  # 2
                match record.engine_name:  # 3
                    case "polars":
                        return told
                return record.engine is None
            """,
        "engines/__init__.py": """\
            def engine_named(name, engines):
                return [engine for engine in engines if engine.name == name]  # allowed here
            """,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    assert engine_name_tests(root) == ["api.py:2", "api.py:4", "api.py:6", "cli/output.py:2", "cli/output.py:3"]


def test_every_engine_answers_one_run_signature():
    """Each engine's ``run`` takes the same arguments (``record.Run``): before, DuckDB's
    took ``(binding, source, con, second)``, polars' ``(binding, source, second)`` and
    Spark's ``(binding, source, spark, second)``."""
    expected = inspect.signature(Run.__call__).replace(
        parameters=list(inspect.signature(Run.__call__).parameters.values())[1:]  # without self
    )
    assert [record.name for record in engines.ENGINES] == ["duckdb", "polars", "spark", "postgres", "clickhouse"]
    for record in engines.ENGINES:
        assert inspect.signature(record.run) == expected, record.name


def test_an_engine_that_computes_tables_of_its_own_has_their_runner():
    assert all(record.table is not None for record in engines.ENGINES if record.supports_states)
    with pytest.raises(TypeError, match="'toy' supports a table of its own but has no table runner"):
        Engine("toy", engines.ENGINES[0].run, supports_curves=True)


@pytest.mark.parametrize(
    ("call", "offered", "hint"),
    [
        (lambda engine: sm.evaluate(FRAME, ["auc"], engine=engine), "'duckdb', 'polars', 'spark', 'postgres', "
         "'clickhouse'", ""),
        (lambda engine: sm.state(FRAME, ["auc"], engine=engine), "'duckdb', 'polars'",
         " (for a warehouse, sm.to_sql(..., state=True) writes the statement)"),
        (lambda engine: sm.roc_curve(FRAME, engine=engine), "'duckdb', 'polars'", ""),
        (lambda engine: sm.confusion_matrix(FRAME, prediction="label", engine=engine), "'duckdb', 'polars'", ""),
        (lambda engine: sm.per_class(FRAME, ["f1"], prediction="label", engine=engine), "'duckdb', 'polars'", ""),
    ],
)  # fmt: skip
def test_an_unknown_or_unable_engine_is_refused_with_those_that_are(call, offered, hint):
    """Each entry point lists the engines that support it (the records say which), as each
    did before engines were records."""
    with pytest.raises(sm.InvalidParameterError) as refused:
        call("hive")
    assert str(refused.value) == f"engine must be one of {offered}, got 'hive'{hint}"
    if "'spark'" not in offered:  # a warehouse engine where only the local ones serve
        with pytest.raises(sm.InvalidParameterError) as refused:
            call("spark")
        assert str(refused.value) == f"engine must be one of {offered}, got 'spark'{hint}"


def test_an_engine_added_as_a_record_is_reached_and_refused_by_what_it_lacks(monkeypatch):
    """Adding an engine is adding its record to ``engines.ENGINES``: ``sm.evaluate`` runs
    the record's ``run`` with the bound call, the source and the connection passed in; an
    entry point it does not support refuses it and names the engines that serve it."""
    given = []

    def run(binding, source, second=None, *, con=None, spark=None):
        given.append((binding.label, source is FRAME, second, con, spark))
        return pl.DataFrame({"n_rows": [4], "n_excluded": [0], "auc": [1.0]})

    toy = Engine("toy", run)
    monkeypatch.setattr(engines, "ENGINES", (*engines.ENGINES, toy))
    connection = object()
    assert sm.evaluate(FRAME, ["auc"], engine="toy", con=connection).row(0) == (4, 0, 1.0)
    assert given == [("label", True, None, connection, None)]
    with pytest.raises(sm.InvalidParameterError, match="^engine must be one of 'duckdb', 'polars', got 'toy'$"):
        sm.roc_curve(FRAME, engine="toy")
    with pytest.raises(sm.InvalidParameterError, match=r"'spark', 'postgres', 'clickhouse', 'toy', got 'hive'$"):
        sm.evaluate(FRAME, ["auc"], engine="hive")
