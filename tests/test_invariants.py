"""Registry-driven invariants: every registered metric, whatever its family, must pass."""

from __future__ import annotations

import doctest

import polars as pl
import polars.testing
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sqlmetrics as sm
from sqlmetrics import templates

from strategies import impressions

METRICS = list(sm.registry())
ROLES = {"label": "label", "score": "score", "query": "query"}


def evaluate(frame, metrics, engine="duckdb", **kwargs):
    return sm.evaluate(frame, metrics, **ROLES, engine=engine, **kwargs)


def assert_same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    polars.testing.assert_frame_equal(left, right, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("name", METRICS)
def test_spec_is_complete(name):
    spec = sm.registry()[name]
    assert spec.summary and spec.reference and spec.family
    text = templates.load(spec.template)
    assert text.startswith(f"-- {name}"), "a template opens with a comment naming its metric"
    assert "{{ by }}" in text
    kind = "expr" if hasattr(spec.module, "expr") else "frame"
    assert getattr(spec.module, kind).__doc__, f"{name}.{kind} needs a docstring"


@pytest.mark.parametrize("name", METRICS)
def test_docstring_examples_run(name):
    module = sm.registry()[name].module
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{module.__name__} has no runnable example"
    assert result.failed == 0


@settings(max_examples=30)
@given(frame=impressions(weighted=True), engine=st.sampled_from(["duckdb", "polars"]), seed=st.integers(0, 2**32 - 1))
def test_row_order_does_not_matter(frame, engine, seed):
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=seed)
    assert_same(
        evaluate(frame, METRICS, engine, weight="weight", by="slice"),
        evaluate(shuffled, METRICS, engine, weight="weight", by="slice"),
    )


@settings(max_examples=30)
@given(frame=impressions(weighted=False), engine=st.sampled_from(["duckdb", "polars"]))
def test_weights_of_one_are_no_weights(frame, engine):
    assert_same(
        evaluate(frame, METRICS, engine, by="slice"),
        evaluate(frame.with_columns(weight=pl.lit(1.0)), METRICS, engine, weight="weight", by="slice"),
    )


@settings(max_examples=30)
@given(frame=impressions(weighted=False, nulls=False), repeats=st.lists(st.integers(1, 3), min_size=40, max_size=40))
def test_integer_weight_equals_repeated_rows(frame, repeats):
    weighted = frame.with_columns(weight=pl.Series(repeats[: frame.height], dtype=pl.Float64))
    repeated = weighted.select(pl.all().repeat_by(pl.col("weight").cast(pl.Int64)).explode()).drop("weight")
    metric_columns = pl.exclude("n_rows", "n_excluded")
    assert_same(
        evaluate(weighted, METRICS, weight="weight", by="slice").select(metric_columns),
        evaluate(repeated, METRICS, by="slice").select(metric_columns),
    )


@settings(max_examples=20)
@given(frame=impressions())
def test_engines_agree(frame):
    kwargs = {"weight": "weight", "by": "slice"}
    assert_same(evaluate(frame, METRICS, "duckdb", **kwargs), evaluate(frame, METRICS, "polars", **kwargs))
    assert_same(evaluate(frame, METRICS, "duckdb"), evaluate(frame, METRICS, "polars"))


@settings(max_examples=15)
@given(frame=impressions(), engine=st.sampled_from(["duckdb", "polars"]))
def test_composition_does_not_change_numbers(frame, engine):
    composed = evaluate(frame, METRICS, engine, weight="weight", by="slice")
    for name in METRICS:
        alone = evaluate(frame, [name], engine, weight="weight", by="slice")
        assert_same(alone, composed.select(alone.columns))


@settings(max_examples=15)
@given(frame=impressions(nulls=False), engine=st.sampled_from(["duckdb", "polars"]))
def test_slicing_equals_filtering(frame, engine):
    sliced = evaluate(frame, METRICS, engine, weight="weight", by="slice")
    for row in sliced.iter_rows(named=True):
        part = frame.filter(pl.col("slice").eq_missing(row["slice"]))
        alone = evaluate(part, METRICS, engine, weight="weight")
        assert_same(alone, sliced.filter(pl.col("slice").eq_missing(row["slice"])).drop("slice"))


@pytest.mark.parametrize("name", [n for n, s in sm.registry().items() if s.range and s.higher_is_better is not None])
def test_perfect_scores_give_the_ideal_value(name, engine):
    spec = sm.registry()[name]
    labels = [0, 1, 1, 0, 1, 0, 0, 1]
    frame = pl.DataFrame({"label": labels, "score": [float(y) for y in labels], "query": [1, 1, 1, 1, 2, 2, 2, 2]})
    ideal = spec.range[1] if spec.higher_is_better else spec.range[0]
    assert evaluate(frame, [name], engine)[name].item() == pytest.approx(ideal, abs=1e-12)


@settings(max_examples=20)
@given(frame=impressions())
def test_values_stay_in_range(frame):
    result = evaluate(frame, METRICS, weight="weight", by="slice")
    for name, spec in sm.registry().items():
        if spec.range is None:
            continue
        low, high = spec.range
        values = result[name].drop_nulls()
        assert ((values >= low - 1e-12) & (values <= high + 1e-12)).all(), name


ROW_METRICS = [name for name, spec in sm.registry().items() if hasattr(spec.module, "expr")]


@settings(max_examples=30)
@given(frame=impressions())
def test_row_expressions_in_group_by_and_over_equal_evaluate(frame):
    """The public polars expressions, applied to rows (ties, NULLs, weights), give the
    numbers of the engines, which compute from the score histogram."""
    evaluated = sm.evaluate(frame, ROW_METRICS, weight="weight", by="slice").drop("n_rows", "n_excluded")
    exprs = [sm.registry()[name].module.expr("score", "label", "weight").alias(name) for name in ROW_METRICS]
    grouped = frame.group_by("slice").agg(exprs).sort("slice", nulls_last=True)
    assert_same(grouped, evaluated)
    over = frame.select("slice", *(e.over("slice") for e in exprs)).unique().sort("slice", nulls_last=True)
    assert_same(over, evaluated)


def test_result_types_are_the_same_for_both_engines(engine):
    frame = pl.DataFrame({"label": [0, 1, 1, 0], "score": [0.2, 0.8, 0.4, 0.5], "query": [1, 1, 2, 2]})
    schema = evaluate(frame, METRICS, engine).schema
    counts = {"n_rows", "n_excluded", *(f"{name}_{out}" for name in METRICS for out in sm.registry()[name].outputs)}
    assert {name: dtype for name, dtype in schema.items() if name in counts} == dict.fromkeys(counts, pl.Int64)
    assert all(dtype == pl.Float64 for name, dtype in schema.items() if name not in counts)
