"""``sqlmetrics.polars``: every metric's expression or frame function is named as
``evaluate`` names its columns, so several go in one ``agg``; frame functions sort their
slices as ``evaluate`` does."""

from __future__ import annotations

import inspect

import polars as pl
import polars.testing
import pytest

import sqlmetrics as sm
import sqlmetrics.polars as smp

from strategies import role_keywords, with_role_columns

FRAME = pl.DataFrame(
    {
        "query": [1, 1, 1, 2, 2, 2, 3, 3],
        "score": [0.9, 0.8, 0.1, 0.5, 0.4, 0.3, 0.7, 0.2],
        "label": [0, 1, 1, 0, 1, 1, 1, 0],
        "day": ["b", "a", None, "b", "a", "b", "a", None],
    }
).pipe(with_role_columns)  # a column per role a family adds, named as the role


def _params(spec: sm.Metric) -> dict:
    """A call with a non-default value where the metric has a numeric parameter, so the
    column name carries it (``fbeta_beta_2``, ``ndcg_at_3``)."""
    numeric = {"k": 3, "beta": 2.0, "threshold": 0.3}
    return {p.name: numeric[p.name] for p in spec.params if p.name in numeric}


@pytest.mark.parametrize("name", sorted(sm.registry()))
def test_named_as_evaluate_names_it(name):
    spec = sm.registry()[name]
    params = _params(spec)
    call = sm.metric(name, **params)
    function = getattr(smp, name.replace("@k", "_at_k"))
    if hasattr(spec.module, "expr"):
        assert FRAME.select(function("score", "label", **params, **role_keywords(spec))).columns == [call.column]
        return
    result = function(FRAME, **_roles(spec), by=["day"], **params)
    assert result.columns == ["day", *call.columns]
    assert result["day"].to_list() == ["a", "b", None]  # sorted, NULLs last


def _roles(spec: sm.Metric) -> dict:
    """The columns of ``FRAME`` a frame function of ``spec``'s family reads."""
    if "class_scores" in spec.needs:
        return {"label": "label", "class_scores": {0: "score", 1: "score"}}
    return {
        "ranking": {"score": "score", "label": "label", "query": "query"},
        "classification": {"score": "score", "label": "label", "query": "query"},
        "multiclass": {"label": "label", "prediction": "label"},
    }[spec.family] | role_keywords(spec)


FRAME_FUNCTIONS = sorted(name for name, spec in sm.registry().items() if not hasattr(spec.module, "expr"))


@pytest.mark.parametrize("name", FRAME_FUNCTIONS)
def test_a_frame_function_answers_in_kind(name):
    """One rule for every frame function: a LazyFrame in gives a LazyFrame out (nothing
    computed until it is collected), a DataFrame in gives a DataFrame out; both hold the
    same rows."""
    spec = sm.registry()[name]
    function, keywords = getattr(smp, name.replace("@k", "_at_k")), {**_roles(spec), **_params(spec), "by": "day"}
    eager, lazy = function(FRAME, **keywords), function(FRAME.lazy(), **keywords)
    assert isinstance(eager, pl.DataFrame)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(eager)


def test_several_expressions_in_one_agg():
    result = FRAME.group_by("day").agg(
        smp.auc("score", "label"), smp.logloss("score", "label"), smp.brier("score", "label")
    )
    assert result.columns == ["day", "auc", "logloss", "brier"]


@pytest.mark.parametrize("name", ["gauc", "ndcg", "mrr"])
def test_slicing_by_the_query_column_itself_gives_a_slice_per_query(name):
    """As sm.evaluate does (each slice one query): the polars face must not group by the
    query column twice."""
    function, frame = getattr(smp, name), FRAME.rename({"query": "user"})
    result = function(frame, score="score", label="label", query="user", by="user")
    expected = sm.evaluate(frame, [name], score="score", label="label", query="user", by="user", engine="polars")
    assert result.equals(expected.select(result.columns))


# Names the frame functions' steps give columns of their own (counts, classes, a query's
# AUC and weight, the canonical roles and slices): a user's column so named must change
# nothing. smp.cohen_kappa sliced by a column named d (its disagreement weights) gave
# other slices and values, gauc sliced by group_weight other values; the multi-class
# functions sliced by n, w or class failed, and gauc with a query named pos.
STEP_NAMES = ["n", "w", "d", "pos", "neg", "auc", "group_weight", "rank_sum", "class", "true_class", "predicted_class",
              "support", "tp", "value", "query", "item", "slice_1", "query_rows"]  # fmt: skip


def _renamed(role, old: str, new: str):
    """A role's column(s) with ``old`` named ``new`` (class scores: a mapping of columns)."""
    if isinstance(role, dict):
        return {key: _renamed(column, old, new) for key, column in role.items()}
    return new if role == old else role


@pytest.mark.parametrize("name", FRAME_FUNCTIONS)
def test_a_frame_function_whatever_its_columns_are_named(name):
    spec, call = sm.registry()[name], sm.metric(name, **_params(sm.registry()[name]))
    function = getattr(smp, name.replace("@k", "_at_k"))
    frame = FRAME.with_columns(prediction=pl.Series([0, 1, 0, 0, 1, 1, 1, 0]), weight=pl.Series([1.0, 2.0, 0.5] * 2 + [3.0, 1.0]))
    roles = {**_roles(spec), **({"prediction": "prediction"} if "prediction" in _roles(spec) else {})}
    if "weight" in inspect.signature(function).parameters:
        roles["weight"] = "weight"
    want = function(frame, **roles, **_params(spec), by=["day"])
    for column in ["day", *(c for c in frame.columns if c != "day" and c in str(roles))]:
        for new in STEP_NAMES:
            if new in frame.columns or new in call.columns:  # an output column's name is the user's to avoid
                continue
            renamed = {role: _renamed(value, column, new) for role, value in roles.items()}
            by = new if column == "day" else "day"
            got = function(frame.rename({column: new}), **renamed, **_params(spec), by=[by])
            polars.testing.assert_frame_equal(got.rename({by: "day"}), want, rel_tol=1e-12, abs_tol=1e-14)
