"""Every ranking metric against the brute-force reference (every parameter, both input
shapes, both engines), and against pytrec_eval, ranx and scikit-learn where their
conventions are ours (tests/ranking_reference.py documents each mapping)."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import sqlmetrics as sm
from sqlmetrics.compose.intermediates import reads

import ranking_reference as rr
from strategies import AGREEMENT, examples, head_list_impressions, parameters, ranked_impressions, run_and_judgments

TOL = 1e-9
ENGINES = st.sampled_from(["duckdb", "polars"])
ROLES = {"label": "label", "score": "score", "query": "query", "item": "item"}
RANKING = [name for name, spec in sm.registry().items() if spec.family == "ranking"]
OUR_NAME = {rr.reference_name(name): name for name in RANKING}
# the metrics taking every tie policy, "average" between "pessimistic" and "optimistic"
AVERAGING_TIES = [
    name for name in RANKING if any(p.name == "ties" and "average" in p.choices for p in sm.registry()[name].params)
]

# the metrics reading the running discount sums (positions), which stop at the deepest cutoff
POSITION_READERS = [name for name in RANKING if reads("positions", sm.registry()[name].intermediates)]

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")  # ranx hashes ids


@st.composite
def ranking_calls(draw, names=RANKING) -> sm.MetricCall:
    """A ranking metric with parameters drawn from its spec's choices and bounds."""
    name = draw(st.sampled_from(names))
    return sm.metric(name, **draw(parameters(sm.registry()[name])))


def reference_name(call: sm.MetricCall) -> str:
    return rr.reference_name(call.spec.name)


def reference(rows: pl.DataFrame, call: sm.MetricCall, judgments: pl.DataFrame | None = None) -> tuple:
    return rr.evaluate_ranking(rows, reference_name(call), judgments=judgments, **call.kwargs)


def per_query_reference(rows: pl.DataFrame, call: sm.MetricCall, judgments: pl.DataFrame | None = None) -> dict:
    return rr.per_list(rows, reference_name(call), judgments=judgments, **call.kwargs)


def macro(call: sm.MetricCall) -> sm.MetricCall:
    """The call with macro averaging: per list, micro pools the list's own hits and R,
    while the reference's per-list value is the macro one."""
    return sm.metric(call.spec.name, **{**call.kwargs, "average": "macro"}) if "average" in call.kwargs else call


def assert_close(actual: float | None, expected: float | None) -> None:
    assert (actual is None) == (expected is None), (actual, expected)
    if expected is not None:
        assert math.isclose(actual, expected, rel_tol=TOL, abs_tol=TOL), (actual, expected)


def assert_matches(result: pl.DataFrame, call: sm.MetricCall, expected: tuple) -> None:
    row = result.row(0, named=True)
    assert_close(row[call.column], expected[0])
    assert (row[f"{call.column}_queries"], row[f"{call.column}_skipped"]) == expected[1:]


def per_query(result: pl.DataFrame, call: sm.MetricCall) -> dict:
    """{query: value or None when skipped} from a result sliced by query."""
    return {
        row["query"]: row[call.column] if row[f"{call.column}_queries"] else None
        for row in result.iter_rows(named=True)
    }


def assert_per_query_close(actual: dict, expected: dict) -> None:
    assert actual.keys() == expected.keys()
    for query in expected:
        assert_close(actual[query], expected[query])


# Each metric draws its own examples: a reference no example reached would prove nothing.
@pytest.mark.parametrize("name", RANKING)
@examples(12)
@given(rows=ranked_impressions(min_rows=1), data=st.data(), engine=ENGINES)
def test_impressions_match_brute_force(name, rows, data, engine):
    call = data.draw(ranking_calls([name]))
    expected = reference(rows, call)
    assert_matches(sm.evaluate(rows, [call], **ROLES, engine=engine), call, expected)
    call = macro(call)
    sliced = sm.evaluate(rows, [call], **ROLES, by="query", engine=engine)
    assert_per_query_close(per_query(sliced, call), per_query_reference(rows, call))


@pytest.mark.parametrize("name", RANKING)
@examples(12)
@given(data=run_and_judgments(tie_free=False, max_rows=6), drawn=st.data(), engine=ENGINES)
def test_runs_with_judgments_match_brute_force(name, data, drawn, engine):
    call = drawn.draw(ranking_calls([name]))
    run, judgments = data
    kwargs = {**ROLES, "judgments": judgments, "engine": engine}
    result = sm.evaluate(run, [call], **kwargs)
    # every run query is a list; those without judgments are skipped whatever `empty` says
    unjudged = run.join(judgments, on="query", how="anti")["query"].n_unique()
    value, used, skipped = reference(run, call, judgments)
    assert_matches(result, call, (value, used, skipped + unjudged))
    call = macro(call)
    sliced = per_query(sm.evaluate(run, [call], **kwargs, by="query"), call)
    expected = per_query_reference(run, call, judgments)
    assert_per_query_close({q: v for q, v in sliced.items() if q in expected}, expected)


# Issue 31: skewed logs, where one list holds most rows, must give the numbers of the brute
# force whatever plan the per-list steps take (the heavy-tie lists only under the fixed-order
# policies: every order of their tie groups cannot be enumerated).
@pytest.mark.parametrize("name", RANKING)
@examples(12)
@given(heavy_ties=st.booleans(), data=st.data(), engine=ENGINES)
def test_a_list_holding_most_rows_matches_brute_force(name, heavy_ties, data, engine):
    rows = data.draw(head_list_impressions(heavy_ties=heavy_ties))
    call = data.draw(ranking_calls([name]))
    if heavy_ties and call.kwargs.get("ties") == "average":
        call = sm.metric(name, **{**call.kwargs, "ties": data.draw(st.sampled_from(["pessimistic", "optimistic"]))})
    used = rows.drop_nulls(["query", "score", "label"])
    assert_matches(sm.evaluate(rows, [call], **ROLES, engine=engine), call, reference(used, call))
    # the same rows as a run and its judgments: some judged items unretrieved, some retrieved unjudged
    judged = data.draw(st.lists(st.booleans(), min_size=used.height, max_size=used.height))
    judgments = pl.concat(
        [
            used.filter(pl.Series(judged)).select("query", "item", "label"),
            used.select("query").unique().with_columns(item=pl.lit("unretrieved"), label=pl.lit(2.0)),
        ]
    )
    run = rows.drop("label")
    kwargs = {**ROLES, "judgments": judgments, "engine": engine}
    value, used_lists, skipped = reference(run.drop_nulls(["query", "score"]), call, judgments)
    # a run query without judgments (its rows' labels were all NULL) is skipped whatever `empty` says
    unjudged = run.drop_nulls(["query", "score"]).join(judgments, on="query", how="anti")["query"].n_unique()
    assert_matches(sm.evaluate(run, [call], **kwargs), call, (value, used_lists, skipped + unjudged))


# Issue 31: positions (the running discount sums) stops at the deepest cutoff of the metrics
# reading it, and runs to the longest list only for a reader without one. Composed in one
# call, readers with different cutoffs (none, within the head list, past the short lists)
# must each give the brute force's number: a positions table cut too short loses the terms
# of the deeper readers.
@examples(25)
@given(rows=head_list_impressions(heavy_ties=False), data=st.data(), engine=ENGINES)
def test_position_readers_composed_at_mixed_cutoffs_match_brute_force(rows, data, engine):
    cutoffs = data.draw(
        st.lists(st.one_of(st.none(), st.integers(1, 12), st.integers(100, 130)), min_size=2, max_size=4, unique=True)
    )
    calls = []
    for k in cutoffs:  # distinct cutoffs: distinct result columns
        name = data.draw(st.sampled_from(POSITION_READERS))
        calls.append(sm.metric(name, **{**data.draw(parameters(sm.registry()[name])), "k": k}))
    result = sm.evaluate(rows, calls, **ROLES, engine=engine)
    used = rows.drop_nulls(["query", "score", "label"])
    for call in calls:
        assert_matches(result, call, reference(used, call))


def test_position_readers_with_a_tie_group_straddling_the_cutoff(engine):
    # The head list ranks a tie group of 3 at positions 3..5 (score 0.7), which straddles
    # k = 4: its rows share D(4) - D(2) (dcg, ndcg) and H(4) - H(2) (map) within the cutoff.
    # The second list is shorter than every cutoff, and its judged items fill an ideal
    # ranking as long. ndcg without a cutoff reads positions to the end of the head list.
    head = [0.9, 0.8, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
    rows = pl.DataFrame(
        {
            "query": ["h"] * len(head) + ["s", "s"],
            "item": [f"d{i}" for i in range(len(head) + 2)],
            "score": [*head, 0.2, 0.1],
            "label": [0.0, 1.0, 2.0, 0.0, 1.0, 0.0, 3.0, 0.0, 0.0, 1.0, 0.0, 1.0, 2.0],
        }
    )
    calls = [sm.metric(name, k=k) for name in POSITION_READERS for k in (4, 6)]
    calls += [sm.metric(POSITION_READERS[0], k=None)]
    result = sm.evaluate(rows, calls, **ROLES, engine=engine)
    for call in calls:
        assert_matches(result, call, reference(rows, call))


@given(
    data=run_and_judgments(tie_free=False),
    measure=st.sampled_from(list(rr.TREC_MEASURES)),
    cut=st.integers(1, 10),
    engine=ENGINES,
)
def test_matches_pytrec_eval_per_query_and_mean(data, measure, cut, engine):
    """trec_eval: ties by item id descending, queries without relevant items score 0,
    linear gain; it evaluates the queries both in the run and in the judgments."""
    run, judgments = data
    run = run.join(judgments.select("query").unique(), on="query", how="semi")
    name = OUR_NAME[rr.TREC_MEASURES[measure]]
    params = {"ties": "item", "empty": "zero"} | ({"gain": "linear"} if name == "ndcg" else {})
    call = sm.metric(name, **params, **({"k": cut} if "{K}" in measure else {}))
    expected, mean = rr.pytrec_eval_reference(run, judgments, measure.format(K=cut))
    kwargs = {**ROLES, "judgments": judgments, "engine": engine}
    assert_per_query_close(per_query(sm.evaluate(run, [call], **kwargs, by="query"), call), expected)
    assert_close(sm.evaluate(run, [call], **kwargs)[call.column].item(), mean)


@given(data=run_and_judgments(tie_free=True), cut=st.integers(1, 10), engine=ENGINES)
def test_matches_ranx_on_tie_free_runs(data, cut, engine):
    """ranx scores queries without relevant items 0 and evaluates the queries both in the
    run and in the judgments."""
    run, judgments = data
    run = run.join(judgments.select("query").unique(), on="query", how="semi")
    calls = {
        ranx_name: sm.metric(OUR_NAME[name], k=cut, empty="zero", **({"gain": gain} if gain else {}))
        for ranx_name, (name, gain) in rr.RANX_METRICS.items()
    }
    result = sm.evaluate(run, list(calls.values()), **ROLES, judgments=judgments, engine=engine)
    for ranx_name, call in calls.items():
        _, mean = rr.ranx_reference(run, judgments, f"{ranx_name}@{cut}")
        assert_close(result[call.column].item(), mean)


@given(rows=ranked_impressions(), cut=st.one_of(st.none(), st.integers(1, 8)), engine=ENGINES)
def test_matches_sklearn_ndcg_and_dcg_with_averaged_ties(rows, cut, engine):
    """scikit-learn averages the gains of tied scores as ties="average" does (linear gain,
    the ideal from the same list, lists without relevant items scoring 0)."""
    for name, sklearn_metric in (("ndcg", rr.sklearn_ndcg), ("dcg", rr.sklearn_dcg)):
        call = sm.metric(name, k=cut, gain="linear", empty="zero")
        expected = {
            query: sklearn_metric(group["score"].to_list(), group["label"].to_list(), cut)
            for (query,), group in rows.partition_by("query", as_dict=True).items()
        }
        result = sm.evaluate(rows, [call], **ROLES, by="query", engine=engine)
        assert_per_query_close(per_query(result, call), expected)


@pytest.mark.parametrize(("gain", "expected"), [("linear", 0.853491), ("exponential", 0.829613)])
def test_seed_example_with_an_unretrieved_judgment(gain, expected, engine):
    # The seeds' list: ranked relevances 5 3 2 1 2, judged also "f" (4, not retrieved) and
    # "g" (0): the ideal order is 5 4 3 2 2. Discounts 1/log2(p+1): 1, 0.630930, 0.5, 0.430677, 0.386853.
    # linear:      DCG  = 5 + 3*0.630930 + 2*0.5 + 1*0.430677 + 2*0.386853 = 9.097172
    #              IDCG = 5 + 4*0.630930 + 3*0.5 + 2*0.430677 + 2*0.386853 = 10.658778 -> 0.853491
    # exponential: DCG  = 31 + 7*0.630930 + 3*0.5 + 1*0.430677 + 3*0.386853 = 38.507743
    #              IDCG = 31 + 15*0.630930 + 7*0.5 + 3*0.430677 + 3*0.386853 = 46.416534 -> 0.829613
    run = pl.DataFrame({"query": ["q"] * 5, "item": list("abcde"), "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    judgments = pl.DataFrame({"query": ["q"] * 7, "item": list("abcdefg"), "label": [5, 3, 2, 1, 2, 4, 0]})
    call = sm.metric("ndcg@5", gain=gain)
    result = sm.evaluate(run, [call], **ROLES, judgments=judgments, engine=engine)
    assert result[call.column].item() == pytest.approx(expected, abs=1e-6)


@given(
    data=run_and_judgments(tie_free=False, max_rows=6),
    name=st.sampled_from(AVERAGING_TIES),
    cut=st.integers(1, 6),
    engine=ENGINES,
)
def test_average_ties_lie_between_pessimistic_and_optimistic(data, name, cut, engine):
    run, judgments = data
    calls = [sm.metric(name, k=cut, ties=ties) for ties in ("pessimistic", "average", "optimistic")]
    result = sm.evaluate(run, calls, **ROLES, judgments=judgments, by="query", engine=engine)
    for low, mid, high in result.select(call.column for call in calls).drop_nulls().iter_rows():
        assert low - TOL <= mid <= high + TOL


@examples(60, AGREEMENT)
@given(data=run_and_judgments(tie_free=False, max_rows=6), call=ranking_calls())
def test_polars_frame_functions_equal_evaluate(data, call):
    """``smp.<metric>(run, judgments=...)`` (and over impressions) gives evaluate's numbers."""
    import sqlmetrics.polars as smp

    run, judgments = data
    function = getattr(smp, call.spec.name.replace("@k", "_at_k"))
    columns = {"score": "score", "query": "query", "item": "item", "label": "label"}
    for rows, judged in ((run, judgments), (run.join(judgments, on=["query", "item"]), None)):
        expected = sm.evaluate(rows, [call], **ROLES, judgments=judged, by="query")
        result = function(rows, **columns, judgments=judged, by=["query"], **call.kwargs)
        assert result.columns == ["query", *call.columns]  # named as evaluate names them
        for got, want in zip(result.iter_rows(), expected.select("query", *call.columns).iter_rows()):
            assert got[0] == want[0] and got[2:] == want[2:]
            assert_close(got[1], want[1])


def test_a_list_of_exactly_k_rows_in_ascending_score_order(engine):
    # map@2 of one list ranked 2 (rel 0, score 0.5) then 10 (rel 1, score 0.0): the
    # relevant item is at position 2, so AP@2 = (1/2) / R = 0.5. The floor of the k-th
    # score must be 0.0 (polars' min of a sorted head of exactly k rows once gave 0.5).
    rows = pl.DataFrame({"query": ["q", "q"], "item": ["10", "2"], "score": [0.0, 0.5], "label": [1, 0]})
    for call in (sm.metric("map", k=2), sm.metric("ndcg@2", gain="linear"), sm.metric("precision@2")):
        result = sm.evaluate(rows, [call], label="label", score="score", query="query", engine=engine)
        expected = {"map": 0.5, "ndcg": 1 / math.log2(3), "precision": 0.5}[call.base_name]
        assert result[call.column].item() == pytest.approx(expected, abs=1e-15)
