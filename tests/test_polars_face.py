"""``sqlmetrics.polars``: every metric's expression or frame function is named as
``evaluate`` names its columns, so several go in one ``agg``; frame functions sort their
slices as ``evaluate`` does."""

from __future__ import annotations

import polars as pl
import pytest

import sqlmetrics as sm
import sqlmetrics.polars as smp

FRAME = pl.DataFrame(
    {
        "query": [1, 1, 1, 2, 2, 2, 3, 3],
        "score": [0.9, 0.8, 0.1, 0.5, 0.4, 0.3, 0.7, 0.2],
        "label": [0, 1, 1, 0, 1, 1, 1, 0],
        "day": ["b", "a", None, "b", "a", "b", "a", None],
    }
)


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
        assert FRAME.select(function("score", "label", **params)).columns == [call.column]
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
    }[spec.family]


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
