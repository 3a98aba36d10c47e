"""The statements carry only the branches their parameters take: a template branches on
its parameters (``CASE WHEN {{ gain }} = 'linear' ...``, ``COALESCE({{ k }}, ...)``), and
an analyst reading a rendered statement should not have to evaluate ``CASE WHEN
'exponential' = 'linear'`` by hand. No rendering, in any dialect, of any metric at any of
its parameters' values (and the golden files) holds a constant expression the renderer
could have folded: a comparison of two literals, a CASE (or IF) whose operand or a
condition is a literal, COALESCE with a literal first argument, AND/OR with TRUE or
FALSE, ``x + 1 - 1``."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp
from test_golden_sql import GOLDEN, KINDS, kind, roles

import sqlmetrics as sm
from sqlmetrics.sqltext.dialects import DIALECTS

VARIABLES = (exp.Column, exp.AggFunc, exp.Window, exp.Subquery, exp.Star, exp.Anonymous, exp.Rand)
COMPARISONS = (exp.Is, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ)


def _constant(node: exp.Expression | None) -> bool:
    """Whether ``node`` is made of literals only (no column, aggregate or subquery)."""
    return node is not None and not any(isinstance(part, VARIABLES) for part in node.walk())


def _one(node: exp.Expression | None) -> bool:
    return isinstance(node, exp.Literal) and node.is_int and int(node.this) == 1


def folded_by_hand(tree: exp.Expression) -> list[str]:
    """The constant expressions of ``tree`` a reader must evaluate by hand."""
    found = []
    for node in tree.walk():
        if isinstance(node, COMPARISONS) and _constant(node.left) and _constant(node.right):
            found.append(node)
        elif isinstance(node, exp.Case) and (
            _constant(node.this) if node.this else any(_constant(branch.this) for branch in node.args["ifs"])
        ):
            found.append(node)
        elif isinstance(node, exp.If) and not isinstance(node.parent, exp.Case) and _constant(node.this):
            found.append(node)
        elif isinstance(node, exp.Coalesce) and _constant(node.this):
            found.append(node)
        elif isinstance(node, exp.Connector) and any(isinstance(side, exp.Boolean) for side in (node.left, node.right)):
            found.append(node)
        elif isinstance(node, exp.Sub) and _one(node.expression) and isinstance(node.this, exp.Add):
            found += [node] if _one(node.this.expression) else []
    return [node.sql() for node in found]


def test_the_detector_finds_each_constant_form():
    sql = (
        "SELECT CASE WHEN 'a' = 'b' THEN x ELSE y END, CASE 'm' WHEN 'm' THEN 1 END, CASE WHEN FALSE THEN 1 END, "
        "COALESCE(10, z), COALESCE(NULL, z), CAST(n AS BIGINT) + 1 - 1, p AND TRUE, IF(TRUE, 1, 2) FROM t"
    )
    assert len(folded_by_hand(sqlglot.parse_one(sql, read="duckdb"))) == 9  # 'a' = 'b' and its CASE: 2
    kept = "SELECT CASE WHEN a = 'b' THEN x END, COALESCE(k, z), n + 1, IF(p, 1, 2), q AND r FROM t"
    assert folded_by_hand(sqlglot.parse_one(kept, read="duckdb")) == []


def variants(name: str):
    """The metric at its defaults and at every other value of each of its parameters
    (each choice; ``k`` both unset and 10), one parameter changed at a time."""
    spec = sm.registry()[name]
    base = {"k": 10} if any(param.required for param in spec.params) else {}
    calls = [sm.metric(name.replace("@k", ""), **base) if base else sm.metric(name)]
    for param in spec.params:
        values = [value for value in param.choices if value != param.default]
        values += [10] if param.name == "k" and not param.required else []
        calls += [sm.metric(name.replace("@k", ""), **(base | {param.name: value})) for value in values]
    return calls


def rendered(call_kind: str, dialect: str, **extra) -> str:
    """One statement of every variant of every metric of ``call_kind``."""
    names = [name for name in sm.registry() if kind(name) == call_kind]
    calls = [call for name in names for call in variants(name)]
    items = {"item": "item_id"} if call_kind == "ranking" else {}  # ties="item" breaks ties by item
    return sm.to_sql(calls, source="logs.impressions", dialect=dialect, **roles(names), **items, **extra)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("call_kind", KINDS)
def test_no_rendering_holds_a_constant_branch(call_kind, dialect):
    found = folded_by_hand(sqlglot.parse_one(rendered(call_kind, dialect), read=dialect))
    assert found == []


@pytest.mark.parametrize("dialect", DIALECTS)
def test_no_unweighted_or_interval_rendering_holds_a_constant_branch(dialect):
    """auc, average_precision and gauc branch on whether rows are weighted; the
    classification call above is weighted, this one is not, and has intervals."""
    names = ["auc", "average_precision", "gauc", "ndcg", "f1", "mae", "multiclass_f1"]
    statements = [
        sm.to_sql(names[:4], source="t", label="y", score="s", query="q", ci=0.95, dialect=dialect),
        sm.to_sql([sm.metric("f1"), "mae"], source="t", label="y", score="s", ci=0.95, dialect=dialect),
        sm.to_sql([sm.multiclass_f1(average="micro")], source="t", label="y", prediction="p", ci=0.9, dialect=dialect),
    ]
    found = [hit for sql in statements for hit in folded_by_hand(sqlglot.parse_one(sql, read=dialect))]
    assert found == []


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*/*.sql")), ids=lambda path: f"{path.parent.name}/{path.name}")
def test_no_golden_file_holds_a_constant_branch(path: Path):
    text = path.read_text()
    if not path.name.startswith("_"):  # a metric's WITH steps: read as a statement's
        text = f"WITH {text} SELECT 1"
    assert folded_by_hand(sqlglot.parse_one(text, read=path.parent.name)) == []
