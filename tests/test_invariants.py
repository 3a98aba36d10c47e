"""Registry-driven invariants: every registered metric, whatever its family, must pass."""

from __future__ import annotations

import doctest

import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sqlmetrics as sm
from sqlmetrics.registry import intermediates
from sqlmetrics.spec import LABEL_DOMAINS, SCORE_DOMAINS, SCORE_ROUNDINGS
from sqlmetrics.sqltext import templates

from strategies import AGREEMENT, examples, impressions, role_keywords, with_role_columns

METRICS = list(sm.registry())
# Classification metrics take weights; ranking metrics order rows and take none. Every
# test below runs the weighted ones with weights and, in the same call shape, all of
# them without (binary labels are relevances too). Multi-class metrics read a
# prediction column, which these impressions lack, and their columns share the binary
# metrics' names: tests/test_multiclass_reference.py runs these invariants on classes.
WEIGHTED = [name for name, spec in sm.registry().items() if spec.weighted and spec.family != "multiclass"]
# Every ranking metric, with a cutoff where it takes one (3: past the 2-row lists, within the longer ones).
RANKING = [
    sm.metric(name, **({"k": 3} if any(p.name == "k" for p in spec.params) else {}))
    for name, spec in sm.registry().items()
    if spec.family == "ranking"
]
ALL = [*(sm.metric(name) for name in WEIGHTED), *RANKING]
# the roles a family adds are bound too, each to its column in the frames (tests/strategies.py)
ROLES = {"label": "label", "score": "score", "query": "query", **role_keywords()}


def evaluate(frame, metrics, engine="duckdb", **kwargs):
    return sm.evaluate(frame, metrics, **ROLES, engine=engine, **kwargs)


def assert_same(left: pl.DataFrame, right: pl.DataFrame) -> None:
    polars.testing.assert_frame_equal(left, right, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("name", METRICS)
def test_spec_is_complete(name):
    spec = sm.registry()[name]
    assert spec.summary and spec.reference and spec.family
    assert spec.score_domain in SCORE_DOMAINS and spec.label_domain in LABEL_DOMAINS
    assert spec.score_rounding in SCORE_ROUNDINGS
    if "ranked" in spec.intermediates:  # says how deep it reads, in a reach the ranked step knows
        assert spec.reach and intermediates()["ranked"].floor(spec.reach, 3, 1.0), spec.reach
    text = templates.load(spec.template)
    assert text.startswith(f"-- {name}"), "a template opens with a comment naming its metric"
    assert "{{ by }}" in text
    kind = "expr" if spec.is_expression else "frame"
    assert getattr(spec.module, kind).__doc__, f"{name}.{kind} needs a docstring"


@pytest.mark.parametrize("name", METRICS)
def test_docstring_examples_run(name):
    module = sm.registry()[name].module
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{module.__name__} has no runnable example"
    assert result.failed == 0


@examples(30, AGREEMENT)
@given(frame=impressions(weighted=True), engine=st.sampled_from(["duckdb", "polars"]), seed=st.integers(0, 2**32 - 1))
def test_row_order_does_not_matter(frame, engine, seed):
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=seed)
    assert_same(
        evaluate(frame, WEIGHTED, engine, weight="weight", by="slice"),
        evaluate(shuffled, WEIGHTED, engine, weight="weight", by="slice"),
    )
    assert_same(evaluate(frame, ALL, engine, by="slice"), evaluate(shuffled, ALL, engine, by="slice"))


@examples(30, AGREEMENT)
@given(frame=impressions(weighted=False), engine=st.sampled_from(["duckdb", "polars"]))
def test_weights_of_one_are_no_weights(frame, engine):
    assert_same(
        evaluate(frame, WEIGHTED, engine, by="slice"),
        evaluate(frame.with_columns(weight=pl.lit(1.0)), WEIGHTED, engine, weight="weight", by="slice"),
    )


@examples(30, AGREEMENT)
@given(frame=impressions(weighted=False, nulls=False), repeats=st.lists(st.integers(1, 3), min_size=40, max_size=40))
def test_integer_weight_equals_repeated_rows(frame, repeats):
    weighted = frame.with_columns(weight=pl.Series(repeats[: frame.height], dtype=pl.Float64))
    repeated = weighted.select(pl.all().repeat_by(pl.col("weight").cast(pl.Int64)).explode()).drop("weight")
    metric_columns = pl.exclude("n_rows", "n_excluded", "mape_skipped")  # these count rows, not weight
    assert_same(
        evaluate(weighted, WEIGHTED, weight="weight", by="slice").select(metric_columns),
        evaluate(repeated, WEIGHTED, by="slice").select(metric_columns),
    )


@examples(20, AGREEMENT)
@given(frame=impressions())
def test_engines_agree(frame):
    kwargs = {"weight": "weight", "by": "slice"}
    assert_same(evaluate(frame, WEIGHTED, "duckdb", **kwargs), evaluate(frame, WEIGHTED, "polars", **kwargs))
    assert_same(evaluate(frame, ALL, "duckdb", by="slice"), evaluate(frame, ALL, "polars", by="slice"))
    assert_same(evaluate(frame, ALL, "duckdb"), evaluate(frame, ALL, "polars"))


@examples(15, AGREEMENT)
@given(frame=impressions(), engine=st.sampled_from(["duckdb", "polars"]))
def test_composition_does_not_change_numbers(frame, engine):
    composed = evaluate(frame, WEIGHTED, engine, weight="weight", by="slice")
    for name in WEIGHTED:
        alone = evaluate(frame, [name], engine, weight="weight", by="slice")
        assert_same(alone, composed.select(alone.columns))
    composed = evaluate(frame, ALL, engine, by="slice")
    for call in ALL:
        alone = evaluate(frame, [call], engine, by="slice")
        assert_same(alone, composed.select(alone.columns))


@examples(15, AGREEMENT)
@given(frame=impressions(nulls=False), engine=st.sampled_from(["duckdb", "polars"]))
def test_slicing_equals_filtering(frame, engine):
    for metrics, weight in [(WEIGHTED, "weight"), (ALL, None)]:
        sliced = evaluate(frame, metrics, engine, weight=weight, by="slice")
        for row in sliced.iter_rows(named=True):
            part = frame.filter(pl.col("slice").eq_missing(row["slice"]))
            alone = evaluate(part, metrics, engine, weight=weight)
            assert_same(alone, sliced.filter(pl.col("slice").eq_missing(row["slice"])).drop("slice"))


@pytest.mark.parametrize(
    "call", [c for c in ALL if c.spec.range and c.spec.higher_is_better is not None and c.spec.best_reached]
)
def test_perfect_scores_give_the_ideal_value(call, engine):
    spec = call.spec
    labels = [0, 1, 1, 0, 1, 0, 0, 1]
    frame = pl.DataFrame({"label": labels, "score": [float(y) for y in labels], "query": [1, 1, 1, 1, 2, 2, 2, 2]})
    frame = with_role_columns(frame)
    ideal = spec.range[1] if spec.higher_is_better else spec.range[0]
    assert evaluate(frame, [call], engine)[call.column].item() == pytest.approx(ideal, abs=1e-12)


@examples(20)
@given(frame=impressions())
def test_values_stay_in_range(frame):
    ranking = evaluate(frame, RANKING, by="slice").drop("slice", "n_rows", "n_excluded")
    result = pl.concat([evaluate(frame, WEIGHTED, weight="weight", by="slice"), ranking], how="horizontal")
    for call in ALL:
        if call.spec.range is None:
            continue
        low, high = call.spec.range
        values = result[call.column].drop_nulls()
        assert ((values >= low - 1e-12) & (values <= high + 1e-12)).all(), call.column


ROW_METRICS = [name for name, spec in sm.registry().items() if spec.is_expression]
# Those reading a score, and those reading none (a family's, as exposure_mean in
# tests/test_new_family.py): in a call with the first the score is bound and a row without
# one is left out for every metric, so the others are evaluated in a call of their own.
ROW_METRIC_CALLS = [
    group
    for reads_score in (True, False)
    if (group := [name for name in ROW_METRICS if ("score" in sm.registry()[name].needs) == reads_score])
]


def row_expressions(names: list[str], weight: str | None) -> list[pl.Expr]:
    """The public polars expression of each metric of ``names`` (and of its extra outputs,
    the module's function of its name: mape.skipped), named as evaluate names its columns;
    the score given only to a metric that reads one."""
    exprs = []
    for name in names:
        spec = sm.registry()[name]
        score = "score" if "score" in spec.needs else None
        exprs.append(spec.module.expr(score, "label", weight, **role_keywords(spec)).alias(name))
        exprs += [
            getattr(spec.module, out)(score, "label", weight, **role_keywords(spec)).alias(f"{name}_{out}")
            for out in spec.outputs
        ]
    return exprs


@pytest.mark.parametrize("weight", ["weight", None])  # unweighted: other forms (auc's rank sum)
@examples(30, AGREEMENT)
@given(frame=impressions())
def test_row_expressions_in_group_by_and_over_equal_evaluate(frame, weight):
    """The public polars expressions, applied to rows (ties, NULLs, weights), give the
    numbers of the engines, which compute from the score histogram or from base's sums."""
    for names in ROW_METRIC_CALLS:
        evaluated = sm.evaluate(frame, names, weight=weight, by="slice", **role_keywords())
        evaluated = evaluated.drop("n_rows", "n_excluded")
        exprs = row_expressions(names, weight)
        grouped = frame.group_by("slice").agg(exprs).sort("slice", nulls_last=True)
        assert_same(grouped, evaluated)
        over = frame.select("slice", *(e.over("slice") for e in exprs)).unique().sort("slice", nulls_last=True)
        assert_same(over, evaluated)


def test_result_types_are_the_same_for_both_engines(engine):
    frame = pl.DataFrame({"label": [0, 1, 1, 0], "score": [0.2, 0.8, 0.4, 0.5], "query": [1, 1, 2, 2]})
    frame = with_role_columns(frame)
    schema = evaluate(frame, ALL, engine).schema
    counts = {"n_rows", "n_excluded", *(f"{call.column}_{out}" for call in ALL for out in call.spec.outputs)}
    assert {name: dtype for name, dtype in schema.items() if name in counts} == dict.fromkeys(counts, pl.Int64)
    assert all(dtype == pl.Float64 for name, dtype in schema.items() if name not in counts)


# Weights far from 1, or whose sums round (0.1): each metric must give the same number
# whatever the size of the weights (every product of weights is taken after dividing by a
# slice's total; the weighted median's half-way test allows for the sums' rounding).
EXTREME_SCALES = [1e-300, 1e-200, 1e-160, 0.1, 1e200, 1e300]
WEIGHT_COUNTS = [name for name in WEIGHTED if sm.registry()[name].weight_count]


def unscaled(result: pl.DataFrame, scale: float) -> pl.DataFrame:
    """``result`` with its weighted counts (tp, fp, tn, fn) divided by ``scale``: what
    they were before every weight was multiplied by it."""
    return result.with_columns(pl.col(WEIGHT_COUNTS) / scale)


@examples(30, AGREEMENT)
@given(
    frame=impressions(weighted=False),
    scale=st.sampled_from(EXTREME_SCALES),
    engine=st.sampled_from(["duckdb", "polars"]),
)
def test_equal_extreme_weights_give_the_unweighted_value(frame, scale, engine):
    weighted = evaluate(frame.with_columns(weight=pl.lit(scale)), WEIGHTED, engine, weight="weight", by="slice")
    assert_same(unscaled(weighted, scale), evaluate(frame, WEIGHTED, engine, by="slice"))


@examples(30, AGREEMENT)
@given(
    frame=impressions(weighted=True),
    scale=st.sampled_from(EXTREME_SCALES),
    engine=st.sampled_from(["duckdb", "polars"]),
)
def test_scaling_every_weight_changes_no_metric(frame, scale, engine):
    scaled = frame.with_columns(pl.col("weight") * scale)
    assert_same(
        unscaled(evaluate(scaled, WEIGHTED, engine, weight="weight", by="slice"), scale),
        evaluate(frame, WEIGHTED, engine, weight="weight", by="slice"),
    )


@examples(20)
@given(frame=impressions(weighted=True), scale=st.sampled_from(EXTREME_SCALES))
def test_row_expressions_are_exact_for_extreme_weights(frame, scale):
    """The public polars expressions: scaling every weight by ``scale`` changes nothing
    but the weighted counts."""
    exprs = []
    for name in [name for name in ROW_METRICS if name in WEIGHTED]:
        spec = sm.registry()[name]
        exprs += [spec.module.expr("score", "label", "weight", **role_keywords(spec)).alias(name)]
    scaled = frame.with_columns(pl.col("weight") * scale)
    counts = [name for name in ROW_METRICS if name in WEIGHT_COUNTS]
    grouped = scaled.group_by("slice").agg(exprs).sort("slice", nulls_last=True)
    expected = frame.group_by("slice").agg(exprs).sort("slice", nulls_last=True)
    assert_same(grouped.with_columns(pl.col(counts) / scale), expected)
