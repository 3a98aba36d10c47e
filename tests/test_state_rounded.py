"""Rounded states (``sm.state(..., score_digits=d)``): the state rounds every score to d
decimals before grouping, identically on both engines, and every roll-up reports next to
each metric that rounding can change a certified bound on the error it caused
(``<column>_max_error``).

The reference is ``evaluate`` over the union of the rows, unrounded: for random
continuous-score logs split into parts, |rollup − evaluate| never exceeds the reported
bound (plus 1e-9, the float summation every roll-up is held to), and the bound is 0 when
the scores had no more than d decimals, where the roll-up equals ``evaluate``.
"""

from __future__ import annotations

import dataclasses
import math

import duckdb
import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import examples
from test_state import assert_same_frame, split_impressions, states_of

import sqlmetrics as sm
from sqlmetrics.compose.rounding import round_scores, rounded_score_sql
from sqlmetrics.errors import InvalidParameterError
from sqlmetrics.registry import registry

BOUNDED = [
    "auc", "logloss", "brier", "calibration", "score_mean", "accuracy", "precision", "recall", "specificity", "f1",
    sm.fbeta(beta=2), "balanced_accuracy", "tp", "fp", "tn", "fn", sm.precision(threshold=0.3), "mcc",
    "average_precision",
]  # fmt: skip
CORNERED = BOUNDED[:-1]  # bounded by the four corners of the scores' spreads; average_precision per bin
EXACT = ["label_mean", "gauc"]  # label_mean reads no score; gauc's per-query values are kept before rounding
COLUMNS = {"label": "label", "score": "score", "query": "user", "weight": "weight"}


def rounded_by_duckdb(values: list[float], digits: int) -> list[float]:
    scores = pl.DataFrame({"score": values}, schema={"score": pl.Float64})
    sql = f"SELECT {rounded_score_sql('score', digits)} AS rounded FROM scores ORDER BY score"
    with duckdb.connect() as con:
        con.register("scores", scores)
        return con.sql(sql).pl()["rounded"].to_list()


@pytest.mark.parametrize("digits", [1, 3, 4, 7, 15])
def test_both_engines_round_alike(digits):
    """The one rounding (half up, FLOOR(s·10^d + 0.5) / 10^d) computed by DuckDB and by
    the polars engine gives the same doubles, ties (x.xx5) and 20,000 random scores
    included; a score of d decimals is left as it is (the double nearest k/10^d)."""
    scale = 10**digits
    ties = [(k + 0.5) / scale for k in range(-20, 20)]
    exact = [k / scale for k in range(-20, 20)]
    values = [*ties, *exact, *np.random.default_rng(digits).random(20_000).tolist()]
    from_polars = round_scores(pl.Series("score", sorted(values)), digits).to_list()
    assert rounded_by_duckdb(values, digits) == from_polars
    assert rounded_by_duckdb(exact, digits) == sorted(exact)
    # half up, as its definition says: 0.5 of the last unit goes up (0.05 -> 0.1 for d = 1, -0.05 -> 0.0)
    assert rounded_by_duckdb([0.25 / 10 ** (digits - 1)], digits) == [3 / scale]
    assert rounded_by_duckdb([-0.25 / 10 ** (digits - 1)], digits) == [-2 / scale]


def assert_within_bounds(rolled: pl.DataFrame, exact: pl.DataFrame, columns: list[str]) -> None:
    """Every column's rolled-up value within its ``_max_error`` of the exact value
    (plus 1e-9 of float summation); NULL on one side only where the bound is infinite."""
    for column in columns:
        for got, want, bound in zip(rolled[column], exact[column], rolled[f"{column}_max_error"]):
            if got is None or want is None:
                assert (got is None and want is None) or bound == math.inf, (column, got, want, bound)
                continue
            assert bound is not None and bound >= 0, (column, bound)
            assert abs(got - want) <= bound + 1e-9 * max(1.0, abs(want)), (column, got, want, bound)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(data=st.data(), digits=st.sampled_from([1, 2, 3]))
@examples(40)
def test_rounded_rollup_is_within_its_bound(engine, data, digits):
    """Continuous scores, rounded to 1..3 decimals in the parts' states: each bounded
    metric of the roll-up within its reported bound of evaluate over the union, by slice
    and over everything; the exact metrics (label_mean, gauc) as evaluate gives them and
    without a bound column; the states alike on both engines."""
    frame = data.draw(split_impressions())
    metrics = [*BOUNDED, *EXACT]
    states = states_of(frame, metrics, engine, score_digits=digits, **COLUMNS)
    other = states_of(frame, metrics, "polars" if engine == "duckdb" else "duckdb", score_digits=digits, **COLUMNS)
    for mine, theirs in zip(states, other):  # the rounded scores the same doubles, the sums to float rounding
        mine, theirs = (state.drop("state_id").sort(pl.all(), nulls_last=True) for state in (mine, theirs))
        assert_same_frame(mine, theirs, 1e-12)
        assert mine.select("score", "score_min", "score_max").equals(theirs.select("score", "score_min", "score_max"))
    names = [m if isinstance(m, str) else m.column for m in BOUNDED]
    for by in (["slice"], []):
        rolled = sm.rollup(states, by=by)
        exact = sm.evaluate(frame, metrics, by=by or None, **COLUMNS)
        assert [c for c in rolled.columns if c.endswith("_max_error")] == [f"{name}_max_error" for name in names]
        assert_within_bounds(rolled, exact, names)
        assert_same_frame(rolled.select(exact.columns).select("n_rows", *EXACT), exact.select("n_rows", *EXACT))
        assert_auc_bound_within_pairs_in_bins(states, by, rolled)


def assert_auc_bound_within_pairs_in_bins(states: list[pl.DataFrame], by: list[str], rolled: pl.DataFrame) -> None:
    """auc's bound is at most Σ_b w⁺_b·w⁻_b / (2·W⁺·W⁻) over the rounded scores b: only
    pairs of a positive and a negative in one bin can have changed, each by ½."""
    base = pl.concat(states, how="diagonal_relaxed").filter(pl.col("state_part") == "base", pl.col("n") > 0)
    keys = [*by, "score"]
    bins = base.group_by(keys).agg(
        pos=pl.when(pl.col("label") == 1).then("w").otherwise(0.0).sum(),
        neg=pl.when(pl.col("label") == 1).then(0.0).otherwise("w").sum(),
    )
    totals = bins.group_by(by or pl.lit(0)).agg(
        pairs=(pl.col("pos") * pl.col("neg")).sum() / (2 * pl.col("pos").sum() * pl.col("neg").sum())
    )
    if by:
        joined = rolled.join(totals, on=by, how="left", nulls_equal=True)
    else:  # one row; no base row at all gives no total (a column of no rows cannot join it)
        pairs = totals["pairs"].to_list()
        joined = rolled.with_columns(pairs=pl.lit(pairs[0] if pairs else None, dtype=pl.Float64))
    for bound, pairs in zip(joined["auc_max_error"], joined["pairs"]):
        if bound is not None and pairs is not None and math.isfinite(pairs):
            assert bound <= pairs + 1e-12, (bound, pairs)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@given(data=st.data(), digits=st.sampled_from([1, 2, 4]))
@examples(20)
def test_bound_is_zero_when_scores_have_no_more_digits(engine, data, digits):
    """Scores of at most d decimals: rounding changes none, every bound is 0 and the
    roll-up equals evaluate over the union."""
    frame = data.draw(split_impressions())
    scale = 10**digits
    # each score the double nearest k / 10^d, as a log of d-decimal scores holds it
    frame = frame.with_columns(
        score=pl.Series([None if s is None else round(s * scale) / scale for s in frame["score"]], dtype=pl.Float64)
    )
    metrics = [*BOUNDED, *EXACT]
    states = states_of(frame, metrics, engine, score_digits=digits, **COLUMNS)
    rolled = sm.rollup(states, by="slice")
    exact = sm.evaluate(frame, metrics, by="slice", **COLUMNS)
    assert_same_frame(rolled.select(exact.columns), exact)
    bounds = rolled.select(pl.col("^.*_max_error$"))
    assert all(value in (0.0, None) for column in bounds.columns for value in bounds[column]), bounds


def test_rounded_state_is_smaller_and_records_its_digits():
    """A continuous score's state keeps a row per distinct rounded score and label, and
    its meta says how scores were rounded."""
    rng = np.random.default_rng(0)
    frame = pl.DataFrame({"score": rng.random(5000), "label": rng.integers(0, 2, 5000)})
    exact = sm.state(frame, ["auc"], score="score").filter(state_part="base")
    rounded = sm.state(frame, ["auc"], score="score", score_digits=2)
    assert exact.height == 5000
    # 101 rounded scores (0.00 .. 1.00), each with both labels at most
    assert rounded.filter(state_part="base").height <= 202
    assert '"score_digits": 2' in rounded.filter(state_part="meta")["state_meta"].item()


@pytest.mark.parametrize("digits", [0, 16, 2.5, True, "3"])
def test_bad_digits_refused(digits):
    frame = pl.DataFrame({"score": [0.1, 0.2], "label": [0, 1]})
    with pytest.raises(InvalidParameterError, match="score_digits must be an integer from 1 to 15"):
        sm.state(frame, ["auc"], score="score", score_digits=digits)


def test_metric_without_a_derived_bound_refused(monkeypatch):
    """A metric of the score histogram that declares no bound (none does today: a new
    one that forgot to) is refused with score_digits."""
    spec = registry()["mcc"]
    monkeypatch.setitem(registry(), "mcc", dataclasses.replace(spec, score_rounding=""))
    frame = pl.DataFrame({"score": [0.1, 0.2], "label": [0, 1]})
    with pytest.raises(InvalidParameterError, match="mcc cannot be kept with score_digits: no certified bound"):
        sm.state(frame, ["auc", "mcc"], score="score", score_digits=3)


def test_digits_without_a_score_histogram_refused():
    """Regression metrics keep sums, not a histogram of scores: nothing to round."""
    frame = pl.DataFrame({"score": [0.1, 0.2], "label": [0.5, 1.0]})
    with pytest.raises(InvalidParameterError, match="score_digits"):
        sm.state(frame, ["mae"], score="score", score_digits=3)


def test_states_of_different_digits_refused():
    frame = pl.DataFrame({"score": [0.12, 0.25], "label": [0, 1]})
    states = [sm.state(frame, ["auc"], score="score", score_digits=d) for d in (2, 3)]
    with pytest.raises(InvalidParameterError, match="score_digits differ"):
        sm.rollup(states)
    with pytest.raises(InvalidParameterError, match="score_digits differ"):
        sm.rollup([states[0], sm.state(frame, ["auc"], score="score")])


@given(data=st.data(), digits=st.sampled_from([1, 2]))
@examples(20)
def test_bound_is_attained_when_each_bin_holds_one_score_per_label(data, digits):
    """Each rounded bin's positives at one score and its negatives at another (both
    rounding to the bin): every corner is the rows' own placement, so the bound is the
    error itself, for every bounded metric."""
    frame = data.draw(split_impressions())
    unit = 10.0**-digits
    bins = [None if s is None else round_scores(pl.Series([s]), digits)[0] for s in frame["score"]]
    moved = [
        None if q is None else min(1.0, max(0.0, q + (0.4 if y == 1 else -0.3) * unit))
        for q, y in zip(bins, frame["label"])
    ]
    frame = frame.with_columns(score=pl.Series(moved, dtype=pl.Float64))
    states = states_of(frame, BOUNDED, "duckdb", by=("part",), score_digits=digits, **COLUMNS)
    rolled, exact = sm.rollup(states), sm.evaluate(frame, BOUNDED, **COLUMNS)
    for name in [m if isinstance(m, str) else m.column for m in CORNERED]:
        got, want, bound = rolled[name][0], exact[name][0], rolled[f"{name}_max_error"][0]
        if got is not None and want is not None:
            assert abs(abs(got - want) - bound) <= 1e-9 * max(1.0, abs(want)), (name, got, want, bound)
    got, want = rolled["average_precision"][0], exact["average_precision"][0]
    bound = rolled["average_precision_max_error"][0]
    if got is not None and want is not None:  # the rows' is the greater: each bin's positives came first
        assert want - got >= -1e-9 and want - got <= bound + 1e-9, (got, want, bound)
