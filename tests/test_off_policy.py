"""The off-policy family (issue 44): each estimator against obp 0.5.7's (obp/ope/estimators.py,
loaded by tests/obp_reference.py) and ips and snips against vw-estimators 0.2.2, on random
logs with NULLs, ties, row weights of 0 and degenerate slices (one row, a target policy
that never takes the logged action, a logging policy that always does), on both engines,
to 1e-9; row weights as frequencies, checked by replicating each row k times for the
references (neither takes weights). Then the input rules (a propensity outside (0, 1], a
target propensity outside [0, 1], a reward model that is not a finite number), NULLs left
out and counted, the parameters, a state per part rolled up, and the command line.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import polars as pl
import polars.testing
import pytest
from hypothesis import given
from hypothesis import strategies as st
from obp_reference import estimators

import sqlmetrics as sm

from strategies import REFERENCE, examples

ROLES = {
    "label": "r",
    "propensity": "p0",
    "target_propensity": "pe",
    "reward_model": "qa",
    "target_reward_model": "qe",
}
COLUMNS = ["r", "p0", "pe", "qa", "qe"]
# every estimator and diagnostic, the parameterized ones at two values each (one
# clipping or switching most weights of the random logs, one few)
CALLS = [
    *(sm.metric(name) for name in ("ips", "snips", "dm", "dr", "sndr", "ess", "max_weight", "mean_weight")),
    sm.clipped_ips(cap=1.5),
    sm.clipped_ips(cap=10),
    sm.switch_dr(cap=1.5),
    sm.switch_dr(cap=10),
    sm.dr_os(shrinkage=0.5),
    sm.dr_os(shrinkage=100),
]
# what each estimator is in obp 0.5.7 (obp/ope/estimators.py): its class and keyword arguments
OBP = {
    "ips": ("InverseProbabilityWeighting", {}),
    "snips": ("SelfNormalizedInverseProbabilityWeighting", {}),
    "clipped_ips": ("InverseProbabilityWeighting", {"lambda_": "cap"}),
    "dm": ("DirectMethod", {}),
    "dr": ("DoublyRobust", {}),
    "sndr": ("SelfNormalizedDoublyRobust", {}),
    "switch_dr": ("SwitchDoublyRobust", {"lambda_": "cap"}),
    "dr_os": ("DoublyRobustWithShrinkage", {"lambda_": "shrinkage"}),
}


# --- random logs ----------------------------------------------------------------------------


@st.composite
def logs(draw, max_rows: int = 24) -> pl.DataFrame:
    """A log of two actions, the logged one first: reward r, π₀ of the logged action p0,
    πₑ of it pe (the other action's 1 − pe), the reward model's q̂ of the logged action qa
    and of the other q1, qe = pe·qa + (1 − pe)·q1, an integer row weight k (0 to 3) and a
    slice g. Values come from small tied sets or a continuous range; r, p0 and pe may be
    NULL; a slice may be degenerate: its target policy never takes the logged action
    (pe = 0, every importance weight 0), its logging policy always does (p0 = 1), or it
    holds one row."""
    n = draw(st.integers(0, max_rows))
    tied = draw(st.booleans())

    def pick(tied_values, low, high):
        return st.sampled_from(tied_values) if tied else st.floats(low, high, allow_nan=False)

    def maybe_null(strategy):
        return st.one_of(st.none(), strategy) if draw(st.booleans()) else strategy

    rows = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["a", "a", "b", "c", None]),
                maybe_null(pick([0.0, 1.0, 0.5, 2.0, -1.0], -3.0, 3.0)),
                maybe_null(pick([1.0, 0.5, 0.25, 0.1, 0.01], 0.001, 1.0)),
                maybe_null(pick([0.0, 0.2, 0.5, 1.0], 0.0, 1.0)),
                pick([0.0, 0.3, 1.0], -2.0, 2.0),
                pick([0.0, 0.6, 1.5], -2.0, 2.0),
                st.sampled_from([0, 1, 1, 2, 3]),
            ),
            min_size=n,
            max_size=n,
        )
    )
    schema = {"g": pl.String, "r": pl.Float64, "p0": pl.Float64, "pe": pl.Float64, "qa": pl.Float64,
              "q1": pl.Float64, "k": pl.Int64}  # fmt: skip
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    degenerate = draw(st.sampled_from(["none", "no_target_mass", "logged_certainly", "one_row"]))
    in_a = pl.col("g") == "a"
    if degenerate == "no_target_mass":
        frame = frame.with_columns(pe=pl.when(in_a).then(0.0).otherwise("pe"))
    elif degenerate == "logged_certainly":
        frame = frame.with_columns(p0=pl.when(in_a).then(1.0).otherwise("p0"))
    elif degenerate == "one_row":
        frame = pl.concat([frame.filter(~in_a | in_a.is_null()), frame.filter(in_a).head(1)])
    return frame.with_columns(qe=pl.col("pe") * pl.col("qa") + (1 - pl.col("pe")) * pl.col("q1"))


# --- the references -------------------------------------------------------------------------


def replicated(frame: pl.DataFrame) -> pl.DataFrame:
    """The used rows (no NULL in a bound column), each repeated k times: a row of weight k
    is k rows, for the references, which take no weights."""
    used = frame.drop_nulls(COLUMNS)
    return used.select(pl.all().repeat_by(pl.col("k")).explode()).drop_nulls("k")


def obp_value(call: sm.MetricCall, rows: pl.DataFrame) -> float | None:
    """The call's value over ``rows`` (already replicated) by obp 0.5.7, or by numpy over
    obp's importance weights for the diagnostics; None where it is undefined (no row, or
    obp's nan: 0/0 in snips and sndr when every weight is 0)."""
    if rows.height == 0:
        return None
    r, p0, pe, qa, q1 = (rows[c].to_numpy() for c in ("r", "p0", "pe", "qa", "q1"))
    n = rows.height
    action = np.zeros(n, dtype=int)  # the logged action is action 0, the other action 1
    action_dist = np.stack([pe, 1 - pe], axis=1)[:, :, np.newaxis]
    q_hat = np.stack([qa, q1], axis=1)[:, :, np.newaxis]
    iw = action_dist[np.arange(n), action, 0] / p0  # obp's importance weights, as its estimators take them
    name = call.spec.name
    if name == "ess":
        value = iw.sum() ** 2 / (iw**2).sum() if (iw**2).sum() > 0 else np.nan
    elif name == "max_weight":
        value = iw.max()
    elif name == "mean_weight":
        value = iw.mean()
    else:
        cls, params = OBP[name]
        estimator = getattr(estimators(), cls)(**{k: call.kwargs[v] for k, v in params.items()})
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = estimator.estimate_policy_value(
                reward=r, action=action, action_dist=action_dist, pscore=p0, estimated_rewards_by_reg_model=q_hat
            )
    return None if np.isnan(value) else float(value)


def by_slice(result: pl.DataFrame, column: str) -> dict:
    return dict(zip(result["g"], result[column]))


def expected_by_slice(frame: pl.DataFrame, call: sm.MetricCall, reference) -> dict:
    """The reference's value per slice of ``frame`` (every slice the result has: those
    whose rows are all left out or of weight 0 are None)."""
    rows = replicated(frame)
    return {g: reference(call, rows.filter(pl.col("g").eq_missing(g))) for g in frame["g"].unique().to_list()}


def assert_close(got: dict, expected: dict, label: str) -> None:
    assert got.keys() == expected.keys(), label
    for g, value in expected.items():
        if value is None:
            assert got[g] is None, (label, g, got[g])
        else:
            assert got[g] == pytest.approx(value, rel=1e-9, abs=1e-9), (label, g)


def evaluate(frame: pl.DataFrame, calls, engine: str, **kwargs) -> pl.DataFrame:
    return sm.evaluate(frame, calls, weight="k", by="g", engine=engine, **ROLES, **kwargs)


@examples(60, REFERENCE)
@given(frame=logs(), engine=st.sampled_from(["duckdb", "polars"]))
def test_every_estimator_equals_obp(frame, engine):
    result = evaluate(frame, CALLS, engine)
    for call in CALLS:
        assert_close(by_slice(result, call.column), expected_by_slice(frame, call, obp_value), call.column)


def vw_value(call: sm.MetricCall, rows: pl.DataFrame) -> float | None:
    """ips or snips by vw-estimators 0.2.2, one example per (replicated) row."""
    from estimators.bandits import ips, snips

    estimator = {"ips": ips, "snips": snips}[call.spec.name].Estimator()
    for r, p0, pe in rows.select("r", "p0", "pe").iter_rows():
        estimator.add_example(p_log=p0, r=r, p_pred=pe)
    return estimator.get()


@examples(60, REFERENCE)
@given(frame=logs(), engine=st.sampled_from(["duckdb", "polars"]))
def test_ips_and_snips_equal_vw_estimators(frame, engine):
    calls = [sm.metric("ips"), sm.metric("snips")]
    result = evaluate(frame, calls, engine)
    for call in calls:
        assert_close(by_slice(result, call.column), expected_by_slice(frame, call, vw_value), call.column)


@examples(30, REFERENCE)
@given(frame=logs(), cut=st.integers(0, 24), engine=st.sampled_from(["duckdb", "polars"]))
def test_two_states_rolled_up_equal_vw_estimators_halves_added(frame, cut, engine):
    """vw-estimators merges two estimators with ``+``, as a roll-up merges two states."""
    from estimators.bandits import ips, snips

    parts = [frame.head(cut), frame.slice(cut)]
    states = [sm.state(part, CALLS, weight="k", by="g", engine=engine, **ROLES) for part in parts]
    rolled = sm.rollup(states)
    for module, name in ((ips, "ips"), (snips, "snips")):
        halves = []
        for part in parts:
            estimator = module.Estimator()
            for r, p0, pe in replicated(part).select("r", "p0", "pe").iter_rows():
                estimator.add_example(p_log=p0, r=r, p_pred=pe)
            halves.append(estimator)
        expected = (halves[0] + halves[1]).get()
        got = rolled[name].item()
        assert (got is None) if expected is None else got == pytest.approx(expected, rel=1e-9, abs=1e-9)
    # and every estimator, parameterized too, rolls up to its value over all the rows
    whole = sm.evaluate(frame, CALLS, weight="k", **ROLES)
    for call in CALLS:
        expected = whole[call.column].item()
        got = rolled[call.column].item()
        assert (got is None) if expected is None else got == pytest.approx(expected, rel=1e-9, abs=1e-9)


# the calls whose analytic interval a state keeps (the means over rows), their parameters
# in the value of each row
WITH_INTERVALS = [call for call in CALLS if call.spec.interval is not None and call.spec.interval.kept is not None]


@pytest.mark.parametrize("engines", [("duckdb", "duckdb"), ("polars", "duckdb"), ("polars", "polars")])
def test_states_roll_up_with_their_intervals(engines):
    """A state keeps each mean's spread (the clipped, switched and shrunk values at the
    call's parameter too), and the roll-up's interval is the one over all the rows."""
    rng = np.random.default_rng(44)
    n = 60
    frame = pl.DataFrame(
        {"g": rng.choice(["a", "b"], n), "r": rng.choice([0.0, 1.0], n), "p0": rng.choice([0.1, 0.5, 1.0], n),
         "pe": rng.uniform(0, 1, n), "qa": rng.uniform(0, 1, n), "qe": rng.uniform(0, 1, n), "k": rng.integers(0, 3, n)}
    )  # fmt: skip
    parts = [frame.head(25), frame.slice(25)]
    states = [sm.state(part, WITH_INTERVALS, weight="k", by="g", engine=e, **ROLES) for part, e in zip(parts, engines)]
    rolled = sm.rollup(states, by="g", ci=0.9)
    whole = evaluate(frame, WITH_INTERVALS, "duckdb", ci=0.9)
    polars.testing.assert_frame_equal(rolled, whole, rel_tol=1e-9, abs_tol=1e-12)


def test_a_ratios_interval_is_not_rolled_up_from_states():
    """snips' delta method reads each row's influence about the slice's own ratio, which
    no state keeps: a roll-up with ci refuses it by name, and rolls it up without ci."""
    states = [sm.state(part, ["snips", "ips"], **ROLES) for part in (HAND.head(2), HAND.tail(2))]
    with pytest.raises(sm.InvalidParameterError, match="^snips: its interval reads the rows"):
        sm.rollup(states, ci=0.9)
    assert sm.rollup(states)["snips"].item() == pytest.approx(HAND_VALUES["snips"])


# --- hand-worked values and degenerate slices ------------------------------------------------

# Four rows: w = πₑ/π₀ = 1/0.5, 0/0.5, 0.5/0.25, 0.5/1 = 2, 0, 2, 0.5; rewards 1, 0, 1, 0;
# q̂ₐ = 0.5, 0.2, 0.4, 0.1; q̂ₑ = 0.6, 0.3, 0.5, 0.2 (Σ 1.6); residuals r − q̂ₐ = 0.5, −0.2,
# 0.6, −0.1, weighted w·(r − q̂ₐ) = 1, 0, 1.2, −0.05 (Σ 2.15).
HAND = pl.DataFrame(
    {"r": [1.0, 0.0, 1.0, 0.0], "p0": [0.5, 0.5, 0.25, 1.0], "pe": [1.0, 0.0, 0.5, 0.5],
     "qa": [0.5, 0.2, 0.4, 0.1], "qe": [0.6, 0.3, 0.5, 0.2]}
)  # fmt: skip
HAND_VALUES = {
    "ips": 4 / 4,  # Σ w·r = 2 + 0 + 2 + 0 over n = 4
    "snips": 4 / 4.5,  # over Σ w = 4.5
    "ess": 4.5**2 / 8.25,  # Σ w² = 4 + 0 + 4 + 0.25
    "max_weight": 2.0,
    "mean_weight": 4.5 / 4,
    "dm": 1.6 / 4,
    "dr": (1.6 + 2.15) / 4,
    "sndr": 1.6 / 4 + 2.15 / 4.5,
    "clipped_ips_cap_1p5": (1.5 + 0 + 1.5 + 0) / 4,  # min(w, 1.5)·r
    "switch_dr_cap_1p5": (1.6 - 0.05) / 4,  # only w = 0.5 (and 0) is at most 1.5: 0.5·(−0.1)
    "dr_os_shrinkage_4": (1.6 + 1 * 0.5 + 1 * 0.6 + (2 / 4.25) * -0.1) / 4,  # 4w / (w² + 4) = 1, 0, 1, 2/4.25
}


def test_hand_worked_values(engine):
    calls = [*(sm.metric(n) for n in list(HAND_VALUES)[:8]), sm.clipped_ips(cap=1.5), sm.switch_dr(cap=1.5),
             sm.dr_os(shrinkage=4)]  # fmt: skip
    result = sm.evaluate(HAND, calls, engine=engine, **ROLES)
    assert result.drop("n_rows", "n_excluded").row(0, named=True) == pytest.approx(HAND_VALUES, rel=1e-12)


def test_a_target_policy_that_never_takes_the_logged_action(engine):
    """Every importance weight 0: ips, clipped_ips and the weights' mean and maximum are 0,
    dr and its kin the direct method; snips, sndr and the ESS divide by Σ w = 0: NULL
    (obp and vw-estimators give nan and None)."""
    frame = HAND.with_columns(pe=pl.lit(0.0))
    calls = [*(sm.metric(n) for n in ("ips", "snips", "ess", "max_weight", "mean_weight", "dr", "sndr", "dm")),
             sm.clipped_ips(cap=1.5), sm.switch_dr(cap=1.5), sm.dr_os(shrinkage=4)]  # fmt: skip
    row = sm.evaluate(frame, calls, engine=engine, **ROLES).row(0, named=True)
    assert [row[c] for c in ("ips", "max_weight", "mean_weight", "clipped_ips_cap_1p5")] == [0.0] * 4
    assert [row[c] for c in ("snips", "sndr", "ess")] == [None] * 3
    assert row["dm"] == pytest.approx(1.6 / 4)
    for column in ("dr", "switch_dr_cap_1p5", "dr_os_shrinkage_4"):
        assert row[column] == pytest.approx(row["dm"])


def test_the_logging_policy_evaluated_on_itself(engine):
    """πₑ = π₀ on every row: every weight is 1, so ips = snips = the mean reward, the ESS is
    the (weighted) number of rows and the mean weight 1."""
    frame = HAND.with_columns(pe=pl.col("p0"), k=pl.Series([1.0, 2.0, 0.0, 3.0]))
    row = sm.evaluate(frame, ["ips", "snips", "ess", "mean_weight"], weight="k", engine=engine, **ROLES).row(
        0, named=True
    )
    mean_reward = (1 * 1.0 + 2 * 0.0 + 3 * 0.0) / 6  # the row of weight 0 counts for nothing
    assert row == pytest.approx(
        {"n_rows": 4, "n_excluded": 0, "ips": mean_reward, "snips": mean_reward, "ess": 6.0, "mean_weight": 1.0}
    )


def test_one_row_and_no_used_row(engine):
    one = sm.evaluate(HAND.head(1), ["ips", "snips", "ess", "dr"], engine=engine, **ROLES).row(0, named=True)
    assert one == pytest.approx({"n_rows": 1, "n_excluded": 0, "ips": 2.0, "snips": 1.0, "ess": 1.0, "dr": 1.6})
    zero = HAND.with_columns(k=pl.lit(0.0))
    row = sm.evaluate(zero, ["ips", "dm", "max_weight", "ess"], weight="k", engine=engine, **ROLES).row(0, named=True)
    assert row == {"n_rows": 4, "n_excluded": 0, "ips": None, "dm": None, "max_weight": None, "ess": None}


def test_nulls_are_left_out_and_counted(engine):
    """A NULL in any bound column leaves the row out of every metric of the call."""
    frame = pl.concat([HAND, pl.DataFrame({"r": [None, 1.0], "p0": [0.5, None], "pe": [0.5, 0.5], "qa": [0.1, 0.1],
                                           "qe": [0.1, 0.1]}, schema=HAND.schema)])  # fmt: skip
    row = sm.evaluate(frame, ["ips", "dr"], engine=engine, **ROLES).row(0, named=True)
    assert row == pytest.approx({"n_rows": 4, "n_excluded": 2, "ips": HAND_VALUES["ips"], "dr": HAND_VALUES["dr"]})


# --- bad input ---------------------------------------------------------------------------------

NAN, INF = float("nan"), float("inf")
# what each column must hold, as the refusal says it
RULES = {
    "p0": "propensity column 'p0' must be a probability in (0, 1]",
    "pe": "target_propensity column 'pe' must be a probability in [0, 1]",
    "qa": "reward_model column 'qa' must be a finite number",
    "qe": "target_reward_model column 'qe' must be a finite number",
    "r": "label column 'r' must be a finite number",
}
# (column, its values in HAND's place, the refusal's count and example)
BAD = [
    ("p0", [0.5, 0.0, 0.25, 1.0], "1 row is not, e.g. 0"),
    ("p0", [0.5, -0.5, 0.25, -1.0], "2 rows are not, e.g. -1"),
    ("p0", [0.5, 1.5, 0.25, 1.0], "1 row is not, e.g. 1.5"),
    ("p0", [0.5, NAN, 0.25, 1.0], "1 row is not, e.g. nan"),
    ("p0", [0.5, INF, 0.25, 1.0], "1 row is not, e.g. inf"),
    ("pe", [-0.1, 0.0, 0.5, 0.5], "1 row is not, e.g. -0.1"),
    ("pe", [1.0, 1.01, 0.5, 0.5], "1 row is not, e.g. 1.01"),
    ("pe", [1.0, NAN, 0.5, 0.5], "1 row is not, e.g. nan"),
    ("pe", [1.0, -INF, 0.5, 0.5], "1 row is not, e.g. -inf"),
    ("qa", [0.5, NAN, 0.4, 0.1], "1 row is not, e.g. nan"),
    ("qe", [0.6, 0.3, INF, 0.2], "1 row is not, e.g. inf"),
    ("r", [1.0, NAN, 1.0, 0.0], "1 row is not, e.g. nan"),
]


def refusal(column: str, found: str) -> str:
    return f"{RULES[column]} (for dr): {found}"


@pytest.mark.parametrize("column, values, found", BAD, ids=[f"{c}={v[1]}" for c, v, _ in BAD])
def test_a_bad_value_is_refused_with_column_count_and_example(column, values, found, engine):
    bad = HAND.with_columns(pl.Series(column, values))
    with pytest.raises(sm.InvalidInputError) as refused:
        sm.evaluate(bad, ["dr"], engine=engine, **ROLES)
    assert str(refused.value) == refusal(column, found)


def test_the_edges_of_the_rules_are_accepted(engine):
    """π₀ = 1 and πₑ = 0 or 1 are probabilities; a tiny π₀ is one too."""
    frame = HAND.with_columns(p0=pl.Series([1.0, 1e-300, 1.0, 1.0]), pe=pl.Series([0.0, 0.0, 1.0, 1.0]))
    row = sm.evaluate(frame, ["ips", "max_weight"], engine=engine, **ROLES).row(0, named=True)
    assert row == {"n_rows": 4, "n_excluded": 0, "ips": 0.25, "max_weight": 1.0}  # w = 0, 0, 1, 1


def test_an_overflowed_weight_is_refused_never_reported(engine):
    """A propensity may be tiny: π₀ = 1e-200 gives w = 1e200, whose ips is finite (reported)
    but whose square overflows, so the ESS (0 if taken from an infinite Σ k·w²) and the
    interval are refused; π₀ = 1e-310 overflows w itself, and every estimator reading it."""
    tiny = HAND.with_columns(p0=pl.Series([1e-200, 0.5, 0.25, 1.0]))
    row = sm.evaluate(tiny, ["ips", "snips"], engine=engine, **ROLES).row(0, named=True)
    assert row == pytest.approx({"n_rows": 4, "n_excluded": 0, "ips": (1e200 + 2) / 4, "snips": 1.0})
    overflow = "an importance weight πₑ/π₀, its square or a sum of them overflowed the float range"
    with pytest.raises(sm.InvalidInputError, match=f"^ess: {overflow}"):
        sm.evaluate(tiny, ["ips", "ess"], engine=engine, **ROLES)
    with pytest.raises(sm.InvalidInputError, match=f"^ips_lo, ips_hi: {overflow}"):
        sm.evaluate(tiny, ["ips"], ci=0.9, engine=engine, **ROLES)
    subnormal = HAND.with_columns(p0=pl.Series([1e-310, 0.5, 0.25, 1.0]))
    with pytest.raises(sm.InvalidInputError, match=f"^ips, dr: {overflow}"):
        sm.evaluate(subnormal, ["ips", "dr", "dm"], engine=engine, **ROLES)


def test_a_reward_that_is_not_a_number_is_refused(engine):
    """As any label the metrics read as a number: refused from the schema."""
    with pytest.raises(sm.SqlMetricsError) as refused:
        sm.evaluate(HAND.with_columns(r=pl.Series(["1", "0", "1", "0"])), ["ips"], engine=engine, **ROLES)
    assert str(refused.value) == "label column 'r' has type String; expected a number or boolean"


def test_a_metric_without_its_role_asks_for_it():
    with pytest.raises(sm.InvalidParameterError, match="dr reads the reward_model column: pass reward_model="):
        sm.evaluate(HAND, ["dr"], label="r", propensity="p0", target_propensity="pe", target_reward_model="qe")


@pytest.mark.parametrize(
    "call, message",
    [
        ({"name": "clipped_ips", "cap": 0}, "clipped_ips: parameter 'cap' must be a finite number > 0, got 0"),
        ({"name": "switch_dr", "cap": -1.5}, "switch_dr: parameter 'cap' must be a finite number > 0, got -1.5"),
        ({"name": "clipped_ips", "cap": INF}, "clipped_ips: parameter 'cap' must be a finite number > 0, got inf"),
        ({"name": "dr_os", "shrinkage": NAN}, "dr_os: parameter 'shrinkage' must be a finite number > 0, got nan"),
        ({"name": "dr_os", "shrinkage": "abc"}, "dr_os: parameter 'shrinkage' must be a finite number > 0, got 'abc'"),
        ({"name": "ips", "cap": 2}, "ips: unknown parameter 'cap' (parameters: none)"),
    ],
)
def test_a_bad_parameter_is_refused(call, message):
    with pytest.raises(sm.InvalidParameterError) as refused:
        sm.metric(**call)
    assert str(refused.value).startswith(message)


# --- the command line -----------------------------------------------------------------------

OPTIONS = ["--label", "r", "--propensity", "p0", "--target-propensity", "pe", "--reward-model", "qa",
           "--target-reward-model", "qe"]  # fmt: skip


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlmetrics", *args], capture_output=True, text=True)


def test_the_cli_evaluates_the_estimators(tmp_path):
    HAND.write_parquet(tmp_path / "log.parquet")
    done = cli("eval", str(tmp_path / "log.parquet"), "-m", "ips,dr,clipped_ips:cap=1.5", *OPTIONS, "--format", "csv")
    assert done.returncode == 0, done.stderr
    header, row = done.stdout.splitlines()
    assert header == "n_rows,n_excluded,ips,dr,clipped_ips_cap_1p5"
    assert row == "4,0,1.0,0.9375,0.75"  # HAND_VALUES: 4/4, (1.6 + 2.15)/4, 3/4
    assert "--target-propensity COLUMN" in cli("eval", "--help").stdout


@pytest.mark.parametrize("column, values, found", [BAD[0], BAD[7], BAD[9]], ids=["p0=0", "pe=nan", "qa=nan"])
def test_the_cli_refuses_a_bad_value(tmp_path, column, values, found):
    HAND.with_columns(pl.Series(column, values)).write_parquet(tmp_path / "bad.parquet")
    done = cli("eval", str(tmp_path / "bad.parquet"), "-m", "dr", *OPTIONS)
    assert done.returncode == 1
    assert refusal(column, found) in done.stderr and "Traceback" not in done.stderr


def test_the_cli_refuses_a_bad_cap(tmp_path):
    HAND.write_parquet(tmp_path / "log.parquet")
    done = cli("eval", str(tmp_path / "log.parquet"), "-m", "clipped_ips:cap=0", *OPTIONS)
    assert done.returncode != 0
    assert "clipped_ips: parameter 'cap' must be a finite number > 0, got 0" in done.stderr
    assert "Traceback" not in done.stderr


# --- the guide's example -----------------------------------------------------------------------


def test_the_guides_example_runs_and_says_what_it_prints(capsys):
    """docs/guide.md's off-policy example, run as written; the numbers its text derives."""
    import re
    from pathlib import Path

    guide = (Path(__file__).resolve().parent.parent / "docs" / "guide.md").read_text()
    section = guide[guide.index("**Off-policy evaluation**") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(code, namespace)
    result = namespace["result"]
    # Monday: w = 1/0.5, 0/0.5, 0.5/0.25 = 2, 0, 2; Tuesday: 0.5/1, 0.4/0.8, 0.3/0.2 = 0.5, 0.5, 1.5
    assert dict(zip(result["day"], result["ips"])) == pytest.approx({"mon": 4 / 3, "tue": 1.5 / 3})
    assert dict(zip(result["day"], result["snips"])) == pytest.approx({"mon": 1.0, "tue": 1.5 / 2.5})
    assert dict(zip(result["day"], result["mean_weight"])) == pytest.approx({"mon": 4 / 3, "tue": 2.5 / 3})
    assert "clipped_ips_cap_2" in capsys.readouterr().out
