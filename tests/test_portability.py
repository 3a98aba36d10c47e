"""The template portability rules, checked over every template in ``sql/`` as the
composer renders it (every template file must be rendered by one of the calls below):

* no ``//`` (DuckDB's integer division operator);
* every division says its type: one side is a double (cast, or a function of double
  value), since Trino's, PostgreSQL's and DataFusion's ``/`` truncate two integers,
  Snowflake's is decimal, and so is DuckDB's on a connection with ``integer_division``;
* every ORDER BY item (in windows too) says its direction and where NULLs go
  (``ASC NULLS LAST``): a DuckDB connection's ``default_order`` and
  ``default_null_order`` apply to those that leave them out;
* no bare decimal literal (Spark and Snowflake read ``2.0`` as DECIMAL): decimals are
  written ``CAST(2.0 AS DOUBLE)`` or in exponent form;
* every window whose value depends on the order of rows it ties (a ROWS frame,
  ROW_NUMBER, LAG, LEAD, ...) orders rows that its partition and ORDER BY keys tell
  apart: the relation it reads is unique on those keys (a GROUP BY on them, one
  generated row per number, or an aggregate of one row);
* no function without a sqlglot mapping except ``error``, which ``dialects.py`` maps;
* every column of every SELECT has a name (a column or an alias), so result and
  intermediate column names are the same in every engine.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

import sqlmetrics as sm
from sqlmetrics.api import _class_table_binding, prepare
from sqlmetrics.compose import compose as composed
from sqlmetrics.compose.class_tables import compose_per_class
from sqlmetrics.compose.rollup import compose_rollup
from sqlmetrics.registry import resolve
from sqlmetrics.request import Request
from sqlmetrics.sqltext import templates

from strategies import role_keywords

SQL_ROOT = Path(__file__).resolve().parent.parent / "sql"
TEMPLATE_FILES = sorted(str(p.relative_to(SQL_ROOT)) for p in SQL_ROOT.rglob("*.sql"))
ORDER_SENSITIVE = (exp.RowNumber, exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue, exp.NthValue)
WIDE = {"x": "p_x", "y": "p_y"}


def calls():
    """(label, composing function) for every registered metric and its variants, the
    curves and the class tables: together they render every template."""
    roles = {"label": "label", "score": "score", "by": ["s"]}
    for name, spec in sm.registry().items():
        metric = sm.metric(name.replace("@k", "@3"))
        kwargs = {**roles, **role_keywords(spec)}  # the roles its family adds, each named as the role
        if "query" in spec.needs:
            kwargs["query"] = "q"
        if spec.family == "multiclass":
            kwargs.pop("score")
            kwargs |= {"class_scores": WIDE} if "class_scores" in spec.needs else {"prediction": "pred"}
        yield name, lambda m=metric, k=kwargs: sm.to_sql([m], source="t", **k)
        if spec.family == "ranking" and name != "rank_corr":
            for ties in ("pessimistic", "item"):
                call = sm.metric(name.replace("@k", "@3"), ties=ties)
                yield f"{name}-{ties}", lambda m=call, k=kwargs: sm.to_sql([m], source="t", item="i", **k)
            run = {"item": "i", "judgments": "j", **kwargs}
            yield f"{name}-judgments", lambda m=metric, k=run: sm.to_sql([m], source="t", **k)
    yield (
        "per_class",
        lambda: compose_per_class(
            _class_table_binding(
                resolve(["f1", sm.multiclass_fbeta(beta=2)], bound=("prediction",)), "y", "pred", None, "s", ()
            ),
            "t",
        ),
    )
    histogram_metrics = ["auc", "average_precision", "logloss", "calibration", sm.metric("precision", threshold=0.5)]
    binding, _ = prepare(histogram_metrics, Request(label="label", score="score", by="s"))
    rows_plan = dataclasses.replace(binding, distinct_scores=True)
    yield "score_rows", lambda: composed(rows_plan, "t")
    yield "distributed", lambda: composed(binding, "t", dialect="spark")
    roles = {"label": "label", "score": "score", "query": "q", "by": "s", "ci": 0.95}
    with_intervals = [  # every classification and ranking metric with an analytic interval
        name.replace("@k", "@3")
        for name, spec in sm.registry().items()
        if spec.interval and spec.family in ("classification", "ranking")
    ]
    yield "intervals", lambda: sm.to_sql(with_intervals, source="t", **roles)
    yield (
        "regression-intervals",
        lambda: sm.to_sql(["mae", "mape", "r2"], source="t", label="y", score="yhat", by="s", ci=0.9),
    )
    kappa = sm.metric("cohen_kappa", weights="quadratic")
    classes = [kappa, "accuracy", sm.metric("multiclass_fbeta", beta=2, average="weighted"), "mcc"]
    yield "multiclass-intervals", lambda: sm.to_sql(classes, source="t", label="y", prediction="pred", by="s", ci=0.9)
    off_policy = [name for name, spec in sm.registry().items() if spec.family == "off_policy"]
    logged = {"label": "r", "propensity": "p0", "target_propensity": "pe", "reward_model": "qa",
              "target_reward_model": "qe", "by": "s"}  # fmt: skip
    yield "off-policy-intervals", lambda: sm.to_sql(off_policy, source="t", ci=0.9, **logged)
    paired = {"label": "label", "query": "q", "by": "s", "scores": ("score", "score_b")}
    paired_metrics = [
        name
        for name, spec in sm.registry().items()
        if spec.interval and spec.interval.paired and spec.family != "multiclass"
    ]
    yield "paired", lambda: sm.to_sql([m.replace("@k", "@3") for m in paired_metrics], source="t", **paired)
    yield (
        "paired-classes",  # two predicted classes: the joint cells' delta method
        lambda: sm.to_sql(classes, source="t", label="y", predictions=("pred", "pred_b"), by="s", ci=0.9),
    )
    clustered_pairs = ["auc", "gauc", "f1", "logloss", "calibration", "ndcg@3"]  # the units' parts subtracted
    yield "clustered-paired", lambda: sm.to_sql(clustered_pairs, source="t", ci_unit="u", **paired)
    clustered = [name for name, spec in sm.registry().items() if spec.interval and spec.interval.clustered]
    classified = [name for name in clustered if sm.registry()[name].family == "classification"]
    yield "clustered", lambda: sm.to_sql(classified, source="t", ci_unit="u", **roles)
    ranked = ["ndcg@3", "mrr", "map", "hit_rate@2"]  # means over queries, by units of several queries
    yield "clustered-queries", lambda: sm.to_sql(ranked, source="t", ci_unit="u", item="i", **roles)
    regression = {"label": "y", "score": "yhat", "by": "s", "ci": 0.9, "ci_unit": "u"}
    yield "clustered-regression", lambda: sm.to_sql(["mape", "rmse", "r2"], source="t", **regression)
    by_class = {"label": "y", "prediction": "pred", "by": "s", "ci": 0.9, "ci_unit": "u"}
    yield "clustered-multiclass", lambda: sm.to_sql(classes, source="t", **by_class)
    bootstrap = {**roles, "ci_method": "bootstrap", "resamples": 3}
    yield "bootstrap", lambda: sm.to_sql(["auc", "f1", "logloss", "mae"], source="t", **bootstrap)
    yield "bootstrap-units", lambda: sm.to_sql(["auc", "gauc"], source="t", ci_unit="q", **bootstrap)
    rolled_up = ["auc", "logloss", "calibration", "f1", "mcc", "gauc", "brier"]
    yield "state", lambda: sm.to_sql(rolled_up, source="t", label="label", score="score", query="q", by="s", state=True)
    yield "rollup", lambda: sm.to_sql(rolled_up, source="t", **roles, rollup=True)
    regression = {"label": "y", "score": "yhat", "by": "s"}
    yield "state-regression", lambda: sm.to_sql(["mae", "rmse"], source="t", **regression, state=True)
    yield "rollup-regression", lambda: sm.to_sql(["mae", "rmse"], source="t", **regression, ci=0.9, rollup=True)
    rounded = dataclasses.replace(
        prepare(["auc", "average_precision", "mcc"], Request(label="label", score="score", by="s"))[0], score_digits=3
    )
    yield "rollup-rounded", lambda: compose_rollup(rounded, "t")
    ranked, lists = ["ndcg@3", "mrr", "map"], {"label": "rel", "score": "score", "query": "q", "by": "s"}
    yield "state-ranking", lambda: sm.to_sql(ranked, source="t", **lists, state=True)
    yield "rollup-ranking", lambda: sm.to_sql(ranked, source="t", **lists, rollup=True)
    long = sm.long_scores("ls", row_id="id")
    yield "long", lambda: sm.to_sql(["auc"], source="t", label="y", class_scores=long)
    for kind, params in [
        ("roc", {"drop_intermediate": True, "max_points": 10}),
        ("pr", {}),
        ("calibration", {}),
        ("calibration", {"strategy": "quantile"}),
    ]:
        yield f"curve-{kind}", lambda k=kind, p=params: sm.curve_sql(k, source="t", by="s", **p)


def rendered() -> dict[str, tuple[str, set[str]]]:
    """Each call's statement and the template files rendering it read."""
    out = {}
    original = templates.render
    for label, compose in calls():
        used: set[str] = set()

        def recording(name, *args, used=used, **kwargs):
            used.add(name)
            return original(name, *args, **kwargs)

        templates.render = recording
        try:
            out[label] = (compose(), used)
        finally:
            templates.render = original
    return out


STATEMENTS = rendered()
TREES = {label: sqlglot.parse_one(sql, read="duckdb") for label, (sql, _) in STATEMENTS.items()}


def test_every_template_is_rendered_by_some_call():
    used = set().union(*(files for _, files in STATEMENTS.values()))
    assert set(TEMPLATE_FILES) - used == set()


@pytest.mark.parametrize("name", TEMPLATE_FILES)
def test_no_double_slash(name):
    code = "\n".join(line.split("--", 1)[0] for line in templates.body(name).splitlines())
    assert "//" not in code


# What makes a division's type explicit: an operand cast to a floating type, written as a
# floating literal, a function of double value, or a product led by such an operand.
_FLOATING = {exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT}
_DOUBLE_VALUED = (exp.Sqrt, exp.Ln, exp.Log, exp.Exp, exp.Pow, exp.Avg)


def _double(operand: exp.Expression) -> bool:
    if isinstance(operand, (exp.Paren, exp.Mul)):
        return _double(operand.this)
    if isinstance(operand, exp.Cast):
        return operand.to.this in _FLOATING
    if isinstance(operand, exp.Literal) and operand.is_number:
        return any(ch in operand.this for ch in ".eE")
    return isinstance(operand, _DOUBLE_VALUED)


@pytest.mark.parametrize("label", sorted(TREES))
def test_every_division_says_its_type(label):
    divisions = TREES[label].find_all(exp.Div)
    implicit = [div.sql("duckdb") for div in divisions if not (_double(div.left) or _double(div.right))]
    assert implicit == []


# Where an ORDER BY's items end, at its own depth: a window's frame, LIMIT, ...
_ORDER_ENDS = {"ROWS", "RANGE", "GROUPS", "LIMIT", "OFFSET", "QUALIFY", "WINDOW"}


def order_items(sql: str) -> list[list[str]]:
    """Each ORDER BY item of ``sql`` (in windows too), as the text of its tokens."""
    tokens = sqlglot.tokenize(sql, read="duckdb")
    items = []
    for start, token in enumerate(tokens):
        if token.token_type != TokenType.ORDER_BY:
            continue
        depth, item = 0, []
        for token in tokens[start + 1 :]:
            kind = token.token_type
            if depth == 0 and (kind in (TokenType.R_PAREN, TokenType.SEMICOLON) or token.text.upper() in _ORDER_ENDS):
                break
            if depth == 0 and kind == TokenType.COMMA:
                items.append(item)
                item = []
                continue
            depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(kind, 0)
            item.append(token.text.upper())
        items.append(item)
    return items


def test_order_items_are_read_to_their_end():
    sql = (
        "SELECT SUM(x) OVER (PARTITION BY p ORDER BY f(a, b) DESC, c ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) "
        "FROM t ORDER BY 1 ASC NULLS LAST"
    )
    assert order_items(sql) == [["F", "(", "A", ",", "B", ")", "DESC"], ["C"], ["1", "ASC", "NULLS", "LAST"]]


@pytest.mark.parametrize("label", sorted(STATEMENTS))
def test_every_order_by_says_its_direction_and_where_nulls_go(label):
    implicit = [
        " ".join(item)
        for item in order_items(STATEMENTS[label][0])
        if item[-3:-2] not in (["ASC"], ["DESC"]) or item[-2:] not in (["NULLS", "FIRST"], ["NULLS", "LAST"])
    ]
    assert implicit == []


@pytest.mark.parametrize("label", sorted(TREES))
def test_no_bare_decimal_literal(label):
    bad = [
        lit.sql("duckdb")
        for lit in TREES[label].find_all(exp.Literal)
        if not lit.is_string and re.fullmatch(r"-?\d*\.\d*", lit.this) and not isinstance(lit.parent, exp.Cast)
    ]
    assert bad == []


@pytest.mark.parametrize("label", sorted(TREES))
def test_functions_have_a_sqlglot_mapping(label):
    unknown = {f.name.lower() for f in TREES[label].find_all(exp.Anonymous)} - {"error"}
    assert unknown == set()


@pytest.mark.parametrize("label", sorted(TREES))
def test_every_selected_column_is_named(label):
    unnamed = []
    for select in TREES[label].find_all(exp.Select):
        if isinstance(select.parent, exp.Union) and select.parent.expression is select:
            continue  # a later branch of a UNION takes the first branch's names
        if isinstance(select.parent, exp.Exists) or (
            isinstance(select.parent, exp.Subquery) and not isinstance(select.parent.parent, (exp.From, exp.Join))
        ):
            continue  # a scalar or EXISTS subquery: a value, not a relation
        unnamed += [e.sql("duckdb") for e in select.expressions if not isinstance(e, (exp.Column, exp.Alias, exp.Star))]
    assert unnamed == []


def _order_sensitive_windows(tree: exp.Expression):
    for window in tree.find_all(exp.Window):
        spec = window.args.get("spec")
        rows = spec is not None and spec.args.get("kind") == "ROWS"
        if rows or isinstance(window.this, ORDER_SENSITIVE):
            yield window


def _names(expressions) -> set[str]:
    return {e.alias_or_name for e in expressions}


def _source(select: exp.Select, tree: exp.Expression) -> exp.Expression | None:
    """The relation a SELECT reads (its FROM, without joins), as a SELECT or UNION."""
    if select.args.get("joins") or select.args.get("from_") is None:
        return None
    relation = select.args["from_"].this
    if isinstance(relation, exp.Subquery):
        return relation.this
    if isinstance(relation, exp.Table):
        for cte in tree.find_all(exp.CTE):
            if cte.alias == relation.name:
                return cte.this
    return None


# Unions the rule cannot see through, unique on these keys, and why.
UNIQUE_UNIONS = {
    "curve": ({"slice_1", "point"}, "point 0 is the origin; the other branch keeps thresholds numbered from 1"),
}

# Steps with one row per list (slices and query) for each tie policy and relevance
# threshold, which every reader fixes in its WHERE, and why.
ONE_ROW_PER_LIST = {
    "first_hits": "only a list's first peer group holding a relevant row is kept (relevant > 0, none before it)",
}


def _unique_keys(relation: exp.Expression | None, tree: exp.Expression) -> set[str] | None:
    """Columns on which ``relation`` is unique (None: not known to be unique on any)."""
    if isinstance(relation, exp.Union) and isinstance(relation.parent, exp.CTE):
        return UNIQUE_UNIONS.get(relation.parent.alias, (None, ""))[0]
    if isinstance(relation.parent, exp.CTE) and relation.parent.alias in ONE_ROW_PER_LIST:
        return {name for name in _names(relation.expressions) if name.startswith("slice_")} | {"query"}
    if not isinstance(relation, exp.Select):
        return None
    projected = {e.this.sql(): e.alias for e in relation.expressions if isinstance(e, exp.Alias)}
    for e in relation.expressions:  # ROW_NUMBER numbers the rows of its partition apart
        if isinstance(e, exp.Alias) and isinstance(e.this, exp.Window) and isinstance(e.this.this, exp.RowNumber):
            return _names(e.this.args.get("partition_by") or []) | {e.alias}
    if relation.args.get("group"):
        return {projected.get(g.sql(), g.alias_or_name) for g in relation.args["group"].expressions}
    generated = [e.alias for e in relation.expressions if isinstance(e, exp.Alias) and isinstance(e.this, exp.Explode)]
    if any(isinstance(e, exp.Alias) and e.find(exp.AggFunc) and not e.find(exp.Window) for e in relation.expressions):
        return set()  # an aggregate without GROUP BY: one row
    inner = _unique_keys(_source(relation, tree), tree)
    if inner is None:
        return None
    carried = _names(relation.expressions) | ({"*"} if relation.find(exp.Star) else set())
    if not (inner <= carried or "*" in carried):
        return None
    return inner | set(generated)


# Steps whose order-sensitive windows may meet ties that change no result, and why.
TIES_CHANGE_NOTHING = {
    "sampled_rows": "the bootstrap numbers the rows in the order of all their columns: rows that tie are equal, so "
    "which of them gets which number (and so which Poisson count) changes no metric",
}


@pytest.mark.parametrize("label", sorted(TREES))
def test_order_sensitive_windows_are_tie_free(label):
    tree = TREES[label]
    ambiguous = []
    for window in _order_sensitive_windows(tree):
        step = window.find_ancestor(exp.CTE)
        if step is not None and step.alias in TIES_CHANGE_NOTHING:
            continue
        keys = _names(window.args.get("partition_by") or []) | {
            o.this.alias_or_name for o in (window.args.get("order").expressions if window.args.get("order") else [])
        }
        unique = _unique_keys(_source(window.find_ancestor(exp.Select), tree), tree)
        if unique is None or not unique <= keys:
            ambiguous.append(window.sql("duckdb"))
    assert ambiguous == []
