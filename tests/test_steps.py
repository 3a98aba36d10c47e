"""The shared steps (``sqlmetrics.steps.Intermediate``) and their polars forms: every
registered step has a polars builder or says which polars form computes it inside its
metrics, and each builder makes the rows of its SQL step: the step rendered by the
composer and run on DuckDB, against the builder run on the polars engine's plan, over
small random frames with tied scores and two slices (weighted, but for the lists)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl
import polars.testing
import pytest

import sqlmetrics as sm
from sqlmetrics.api import prepare
from sqlmetrics.compose import shared_steps
from sqlmetrics.compose.intermediates import combinations, reads
from sqlmetrics.compose.statement import assemble
from sqlmetrics.engines import duckdb_engine
from sqlmetrics.engines.polars_engine import plan
from sqlmetrics.engines.polars_engine.forms import Steps
from sqlmetrics.metrics.ranking._lists import floor_column, hit_floor_column, relevant_column, top_relevant_column
from sqlmetrics.metrics.multiclass import wide_rows
from sqlmetrics.registry import intermediates, registry
from sqlmetrics.request import Request
from sqlmetrics.spec import POLARS_FORMS

STEPS = sorted(intermediates())


@pytest.mark.parametrize("name", STEPS)
def test_every_step_has_a_polars_builder_or_names_the_form_that_folds_it(name):
    step = intermediates()[name]
    assert (step.polars is None) != (step.folded is None), (
        f"intermediate {name!r} must declare either its polars builder (polars=) or the polars form that "
        f"computes it inside its metrics (folded=Folded(form, reason)), not {'both' if step.polars else 'neither'}"
    )
    if step.folded is not None:
        assert step.folded.form in POLARS_FORMS and step.folded.reason.strip()
        forms = {spec.polars_form for spec in registry().values() if reads(name, spec.intermediates)}
        assert forms == {step.folded.form}, f"{name!r} is read by metrics of the polars forms {sorted(forms)}"


def binary_rows(seed: int) -> pl.DataFrame:
    """Scores on a grid of 6 (tied, and a score held by both labels), labels 0/1,
    weights, two slices; a NULL score and a NULL weight (excluded rows)."""
    rng = np.random.default_rng(seed)
    n = 60
    frame = pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "score": rng.integers(0, 6, n) / 5,
            "label": rng.integers(0, 2, n),
            "w": rng.uniform(0.5, 2.0, n),
        }
    )
    return frame.with_row_index().with_columns(
        score=pl.when(pl.col("index") == 0).then(None).otherwise(pl.col("score")),
        w=pl.when(pl.col("index") == 1).then(None).otherwise(pl.col("w")),
    )


def class_rows(seed: int) -> pl.DataFrame:
    """Three classes, a predicted class and a score per class on a grid (tied), weights,
    two slices."""
    rng = np.random.default_rng(seed)
    n = 60
    return pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "label": rng.integers(0, 3, n),
            "prediction": rng.integers(0, 3, n),
            **{f"s{c}": rng.integers(0, 4, n) / 3 for c in range(3)},
            "w": rng.uniform(0.5, 2.0, n),
        }
    )


def ranking_rows(seed: int) -> pl.DataFrame:
    """Lists of 1 to 8 items (queries within two slices), scores on a grid of 4 (tied),
    graded relevance 0..3, weights."""
    rng = np.random.default_rng(seed)
    rows = [
        (g, q, item, rng.integers(0, 4) / 3, int(rng.integers(0, 4)))
        for g in "ab"
        for q in range(5)
        for item in range(int(rng.integers(1, 9)))
    ]
    return pl.DataFrame(rows, schema=["g", "q", "item", "score", "label"], orient="row")


@dataclass(frozen=True)
class Case:
    """A step's agreement case: the frame, the call reading the step, and how its SQL
    rows and its builder's rows are brought to the same columns."""

    rows: Callable[[int], pl.DataFrame]
    metrics: list
    request: Request
    built: Callable[[Steps, Callable, dict], pl.LazyFrame]  # (plan's steps, builder, each's params)
    keys: list[str]  # the rows' keys besides the slices
    values: list[str]
    sql: Callable[[pl.DataFrame], pl.DataFrame] = lambda rows: rows
    sliced: bool = True  # positions: one table for every slice


BINARY = Request(score="score", weight="w", by="g")
CLASSES = Request(prediction="prediction", weight="w", by="g")
CLASS_SCORES = Request(class_scores={0: "s0", 1: "s1", 2: "s2"}, weight="w", by="g")
RANKING = Request(score="score", query="q", item="item", by="g")
RANKING_METRICS = ["ndcg@3", "mrr", "precision@3", sm.metric("map", ties="item", min_relevance=2)]


def _ranked_then_positions(steps: Steps, positions: Callable, each: dict) -> pl.LazyFrame:
    """positions for a cutoff after the ranked rows the call's metrics read (they and the
    cutoff set its length)."""
    for ties, min_relevance in combinations(steps.binding, "ranked", ("ties", "min_relevance")):
        steps.lists.ranked(ties, min_relevance)
    return positions(steps.lists, **each)


CASES = {
    # SQL's score_hist has a row per score and label, the builder's one per score: summed per score
    "score_hist": Case(
        binary_rows,
        ["auc"],
        BINARY,
        lambda steps, build, _: build(steps.base, steps.slices).lazy(),
        ["score"],
        ["n", "w_pos", "w_neg"],
        lambda rows: rows.group_by("slice_1", "score").agg(pl.col("n", "w_pos", "w_neg").sum()),
    ),
    "class_confusion": Case(
        class_rows,
        ["multiclass_f1"],
        CLASSES,
        lambda steps, build, _: build(steps.base.lazy(), steps.slices),
        ["true_class", "predicted_class"],
        ["n", "w"],
    ),
    "class_counts": Case(
        class_rows,
        ["multiclass_f1"],
        CLASSES,
        lambda steps, build, _: build(steps.confusion, steps.slices),
        ["class"],
        ["tp", "support", "predicted"],
    ),
    "class_score_hist": Case(
        class_rows,
        ["multiclass_auc"],
        CLASS_SCORES,
        lambda steps, build, _: build(
            wide_rows(plan.used_rows(steps.rows), steps.slices, steps.binding.class_scores.classes), steps.slices
        ),
        ["class", "score"],
        ["n", "w_pos", "w_neg"],
    ),
    # SQL's judged keeps the labels above 0 (list_floors counts the judged items), the builder every label
    "judged": Case(
        ranking_rows,
        RANKING_METRICS,
        RANKING,
        lambda steps, build, _: build(steps.lists).filter(pl.col("label") > 0),
        ["query", "label"],
        ["n"],
    ),
    "ranked": Case(
        ranking_rows,
        RANKING_METRICS,
        RANKING,
        lambda steps, build, each: build(steps.lists, **each),
        ["query", "label", "relevant", "first_position", "last_position", "group_relevant"],
        [],
    ),
    "first_hits": Case(
        ranking_rows,
        RANKING_METRICS,
        RANKING,
        lambda steps, build, each: build(steps.lists, **each),
        ["query", "a", "g", "m"],
        [],
    ),
    "cutoff_hits": Case(
        ranking_rows,
        RANKING_METRICS,
        RANKING,
        lambda steps, build, each: build(steps.lists, **each),
        ["query"],
        ["hits"],
    ),
    "positions": Case(
        ranking_rows,
        RANKING_METRICS,
        RANKING,
        _ranked_then_positions,
        ["p"],
        ["discount_through", "harmonic_through"],
        lambda rows: rows.with_columns(k=pl.when(pl.col("k") > 0).then(pl.col("k"))),  # k 0: no cutoff
        sliced=False,
    ),
}


def test_every_polars_builder_has_an_agreement_case():
    assert sorted(CASES) == sorted(name for name, step in intermediates().items() if step.polars is not None)


def sql_step(binding, source, second, name: str) -> pl.DataFrame:
    """The rows of step ``name`` as the composed SQL makes them, on DuckDB."""

    def composer(binding, source_sql, second_sql):
        return assemble(shared_steps(binding, source_sql, second_sql), f"SELECT * FROM {name}")

    return duckdb_engine.run(binding, source, None, second, composer=composer)


def same_rows(sql: pl.DataFrame, built: pl.DataFrame, columns: list[str], values: list[str]) -> None:
    """The same rows (sorted by every column but ``values``), values equal to 1e-9."""
    keys = [c for c in columns if c not in values]
    sql, built = (
        frame.select(pl.col(keys), pl.col(values).cast(pl.Float64)).sort(keys, nulls_last=True)
        for frame in (sql, built)
    )
    polars.testing.assert_frame_equal(sql, built, check_dtypes=False, abs_tol=1e-9, rel_tol=1e-9)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", sorted(CASES))
def test_polars_builder_makes_the_rows_of_its_sql_step(name, seed):
    case = CASES[name]
    source = case.rows(seed)
    binding, second = prepare(case.metrics, case.request)
    rows, base, judged = plan.checked_base(binding, source, second)
    steps = Steps(binding, rows, base, judged, plan.family_steps(binding, rows, judged, base).get("class_score_hist"))
    sql = case.sql(sql_step(binding, source, second, name))
    step = intermediates()[name]
    columns = [*(binding.slices if case.sliced else ()), *case.keys, *case.values]
    params = step.each or ()
    for combination in combinations(binding, name, params) if params else [()]:
        each = dict(zip(params, combination))
        expected = sql.filter(*(pl.col(p).eq_missing(v) for p, v in each.items())) if each else sql
        built = case.built(steps, step.polars, each).collect()
        assert expected.height > 0, f"{name} {each}: the case makes no rows"
        same_rows(expected, built, columns, case.values)


# list_floors is ranking's own step (metrics/ranking/list_sql.py), not an intermediate; its
# polars form (list_floors_of) names a column per tie policy, threshold and cutoff where
# the SQL has a row per (ties, min_relevance): each column read must equal the SQL's.
# The metrics read every kind of column (a floor per policy, the top relevant score, the
# lowest score within a cutoff, relevant items per threshold) under two thresholds.
@pytest.mark.parametrize("seed", range(3))
def test_polars_list_floors_are_the_sql_list_floors(seed):
    unjudged = pl.DataFrame({"g": "a", "q": 99, "item": [0, 1, 2], "score": [0.5, 0.5, 0.0], "label": 0})
    source = pl.concat([ranking_rows(seed), unjudged], how="vertical_relaxed")  # NULL scores in list_floors
    metrics = [*RANKING_METRICS, sm.metric("hit_rate@2", min_relevance=2), sm.metric("recall@2", ties="item")]
    binding, second = prepare(metrics, RANKING)
    sql = sql_step(binding, source, second, "list_floors")
    rows, base, judged = plan.checked_base(binding, source, second)
    lists = Steps(binding, rows, base, judged, None).lists
    built = lists.list_floors.collect()
    keys = [*binding.slices, "query"]
    compared = 0
    for (ties, min_relevance), expected in sql.group_by("ties", "min_relevance"):
        columns = {
            "floor": floor_column(ties, min_relevance),
            "top_relevant": top_relevant_column(min_relevance),
            "relevant": relevant_column(min_relevance),
            "judged": "judged",
            **{
                c: hit_floor_column(int(c.removeprefix("cutoff_")), min_relevance)
                for c in sql.columns
                if c.startswith("cutoff_")
            },
        }
        read = {name: column for name, column in columns.items() if column in built.columns}
        compared += len(read)
        renamed = built.select(*keys, *(pl.col(column).alias(name) for name, column in read.items()))
        same_rows(expected.select(*keys, *read), renamed, [*keys, *read], list(read))
    assert compared >= 9  # floors of two policies, top relevant, two cutoffs, relevant counts, judged


# Issue 31: a metric with a cutoff k reads no position past k, so when every metric reading
# positions has one, its running sums stop at the deepest cutoff (3) rather than run to the
# longest list (8 items: on a skewed log, millions of positions).
def test_positions_stop_at_the_deepest_cutoff_when_every_reader_has_one():
    source = ranking_rows(0)
    assert source.group_by("g", "q").len()["len"].max() > 3  # a list runs past the cutoffs
    metrics = ["ndcg@3", "dcg@2", sm.metric("map", k=3, ties="item")]
    binding, second = prepare(metrics, RANKING)
    assert sql_step(binding, source, second, "positions")["p"].max() == 3
    rows, base, judged = plan.checked_base(binding, source, second)
    steps = Steps(binding, rows, base, judged, None)
    builder = intermediates()["positions"].polars
    built = [builder(steps.lists, k=k).collect() for (k,) in combinations(binding, "positions", ("k",))]
    assert max(frame["p"].max() for frame in built) == 3


# The polars engine computes the metrics that are one pass over the rows in the same pass
# as base, before the rules are checked on base: a frame of that pass that fails over
# input breaking a rule must raise the rule's error, and over good input its own.
def test_a_row_pass_that_fails_raises_the_broken_rule_first():
    failing = pl.LazyFrame({"a": ["x"]}).select(pl.col("a").cast(pl.Int64))  # a strict cast that fails
    binding, _ = prepare(["mae"], Request.of({"label": "y", "score": "s"}))
    good = pl.DataFrame({"y": [1.0, 2.0], "s": [1.5, 2.0]})
    with pytest.raises(pl.exceptions.InvalidOperationError):
        plan.collect_checked(plan.read_input(binding, good), [failing])
    nan_score = good.with_columns(s=pl.Series([float("nan"), 2.0]))
    with pytest.raises(sm.InvalidInputError, match="score column 's' must not be NaN: 1 row"):
        plan.collect_checked(plan.read_input(binding, nan_score), [failing])
