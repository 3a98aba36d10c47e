"""The brute-force ranking reference agrees with pytrec_eval, ranx and scikit-learn where their conventions
coincide with ours (each mapping is documented next to its adapter in ranking_reference.py)."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ranking_reference as rr
from strategies import ranked_impressions as impressions
from strategies import run_and_judgments

TOL = 1e-9

POLICIES = ("pessimistic", "average", "optimistic")

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")  # ranx hashes item ids


def assert_close(actual: float | None, expected: float | None) -> None:
    assert (actual is None) == (expected is None), (actual, expected)
    if expected is not None:
        assert math.isclose(actual, expected, rel_tol=TOL, abs_tol=TOL), (actual, expected)


def assert_per_query_close(actual: dict, expected: dict) -> None:
    assert actual.keys() == expected.keys()
    for query in expected:
        assert_close(actual[query], expected[query])


TREC = {"ties": "item", "empty": "zero", "gain": "linear"}


@given(
    data=run_and_judgments(tie_free=False),
    measure=st.sampled_from(list(rr.TREC_MEASURES)),
    cut=st.integers(1, 10),
    min_relevance=st.sampled_from([1, 2]),
)
def test_matches_pytrec_eval_per_query_and_mean(data, measure, cut, min_relevance):
    run, judgments = data
    metric, has_k = rr.TREC_MEASURES[measure], "{K}" in measure
    if metric == "ndcg":  # trec_eval's ndcg gains are raw labels whatever the relevance level
        min_relevance = 1
    expected, expected_mean = rr.pytrec_eval_reference(
        run, judgments, measure.format(K=cut), relevance_level=min_relevance
    )
    params = {**TREC, "k": cut if has_k else None, "min_relevance": min_relevance, "judgments": judgments}
    assert_per_query_close(rr.per_list(run, metric, **params), expected)
    value, used, skipped = rr.evaluate_ranking(run, metric, **params)
    assert_close(value, expected_mean)
    assert (used, skipped) == (len(expected), 0)


@given(data=run_and_judgments(tie_free=False), cut=st.integers(1, 10), min_relevance=st.sampled_from([1, 2]))
def test_micro_averages_pool_pytrec_eval_counts(data, cut, min_relevance):
    """hits@K = P_K * K per query; micro recall = hit_rate = sum hits / sum num_rel, micro precision = mean P_K."""
    run, judgments = data
    precisions, mean_precision = rr.pytrec_eval_reference(run, judgments, f"P_{cut}", relevance_level=min_relevance)
    num_rel, _ = rr.pytrec_eval_reference(run, judgments, "num_rel", relevance_level=min_relevance)
    total_rel = sum(num_rel.values())
    pooled_recall = sum(precisions.values()) * cut / total_rel if total_rel else None
    params = {**TREC, "k": cut, "min_relevance": min_relevance, "average": "micro", "judgments": judgments}
    assert_close(rr.evaluate_ranking(run, "recall", **params)[0], pooled_recall)
    assert_close(rr.evaluate_ranking(run, "hit_rate", **params)[0], pooled_recall)
    assert_close(rr.evaluate_ranking(run, "precision", **params)[0], mean_precision)


@given(data=run_and_judgments(tie_free=True), cut=st.one_of(st.none(), st.integers(1, 10)))
def test_matches_ranx_on_tie_free_runs(data, cut):
    run, judgments = data
    for name, (metric, gain) in rr.RANX_METRICS.items():
        if metric == "precision" and cut is None:  # ranx divides by the run length there, we need k
            continue
        expected, expected_mean = rr.ranx_reference(run, judgments, name if cut is None else f"{name}@{cut}")
        params = {"k": cut, "gain": gain or "linear", "empty": "zero", "judgments": judgments}
        assert_per_query_close(rr.per_list(run, metric, **params), expected)
        assert_close(rr.evaluate_ranking(run, metric, **params)[0], expected_mean)


@given(rows=impressions(), cut=st.one_of(st.none(), st.integers(1, 8)))
def test_matches_sklearn_with_averaged_ties(rows, cut):
    params = {"k": cut, "gain": "linear", "ties": "average", "empty": "zero"}
    for metric, sklearn_metric in (("ndcg", rr.sklearn_ndcg), ("dcg", rr.sklearn_dcg)):
        expected = {
            query: sklearn_metric(group["score"].to_list(), group["label"].to_list(), cut)
            for (query,), group in rows.partition_by("query", as_dict=True).items()
        }
        assert_per_query_close(rr.per_list(rows, metric, **params), expected)
        assert_close(rr.evaluate_ranking(rows, metric, **params)[0], sum(expected.values()) / len(expected))


@given(
    data=run_and_judgments(tie_free=False, max_rows=6),
    metric=st.sampled_from([m for m in rr.METRICS if m != "rank_corr"]),
    cut=st.integers(1, 8),
    gain=st.sampled_from(list(rr.GAINS)),
    min_relevance=st.sampled_from([0.5, 1.0, 2.5]),
    empty=st.sampled_from(rr.EMPTY),
    average=st.sampled_from(["macro", "micro"]),
)
def test_average_ties_lie_between_pessimistic_and_optimistic(data, metric, cut, gain, min_relevance, empty, average):
    run, judgments = data
    if metric not in rr.MICRO_METRICS:
        average = "macro"
    params = {"k": cut, "gain": gain, "min_relevance": min_relevance, "empty": empty, "judgments": judgments}
    low, mid, high = (rr.per_list(run, metric, ties=ties, **params) for ties in POLICIES)
    for query in mid:
        if mid[query] is not None:
            assert low[query] - TOL <= mid[query] <= high[query] + TOL
    low, mid, high = (rr.evaluate_ranking(run, metric, ties=ties, average=average, **params)[0] for ties in POLICIES)
    if mid is not None:
        assert low - TOL <= mid <= high + TOL


def test_hand_worked_ndcg_with_an_unretrieved_judgment():
    # Ranked relevances 5 3 2 1 2; judged also "f" (4, not retrieved) and "g" (0): ideal 5 4 3 2 2.
    # Discounts 1/log2(p+1): 1, 0.630930, 0.5, 0.430677, 0.386853.
    # linear:      DCG  = 5 + 3*0.630930 + 2*0.5 + 1*0.430677 + 2*0.386853 = 9.097172
    #              IDCG = 5 + 4*0.630930 + 3*0.5 + 2*0.430677 + 2*0.386853 = 10.658778 -> 0.853491
    # exponential: DCG  = 31 + 7*0.630930 + 3*0.5 + 1*0.430677 + 3*0.386853 = 38.507743
    #              IDCG = 31 + 15*0.630930 + 7*0.5 + 3*0.430677 + 3*0.386853 = 46.416534 -> 0.829613
    run = pl.DataFrame({"query": ["q"] * 5, "item": list("abcde"), "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    judgments = pl.DataFrame({"query": ["q"] * 7, "item": list("abcdefg"), "label": [5, 3, 2, 1, 2, 4, 0]})
    for gain, expected in (("linear", 0.853491), ("exponential", 0.829613)):
        value, used, skipped = rr.evaluate_ranking(run, "ndcg", k=5, gain=gain, judgments=judgments)
        assert math.isclose(value, expected, abs_tol=1e-6)
        assert (used, skipped) == (1, 0)


def test_hand_worked_rank_corr():
    # (score, label): (3,1) (2,0) (2,1) (1,0). Pairs: (3,1)-(2,0) 1, (3,1)-(2,1) label tie 1/2, (3,1)-(1,0) 1,
    # (2,0)-(2,1) score tie 1/2, (2,0)-(1,0) label tie 1/2, (2,1)-(1,0) 1: 4.5 / 6 = 0.75.
    rows = pl.DataFrame(
        {"query": [1, 1, 1, 1, 2], "score": [3.0, 2.0, 2.0, 1.0, 1.0], "label": [1.0, 0.0, 1.0, 0.0, 1.0]}
    )
    assert rr.evaluate_ranking(rows, "rank_corr") == (0.75, 1, 1)  # the one-row list 2 is skipped


# Metrics whose test module (tests/metrics/ranking/<metric>.py) names an independent library
# computing them: ``EXTERNAL(run, judgments, k)`` gives {query: value} on a tie-free run, to
# ``EXTERNAL_TOLERANCE`` (a library may print rounded values).
EXTERNAL = {name: module for name, module in rr.MODULES.items() if hasattr(module, "EXTERNAL")}


@pytest.mark.parametrize("metric", sorted(EXTERNAL))
@given(data=run_and_judgments(tie_free=True), cut=st.integers(1, 10))
def test_reference_matches_the_library_its_module_names(metric, data, cut):
    run, judgments = data
    module = EXTERNAL[metric]
    expected = module.EXTERNAL(run, judgments, cut)
    ours = rr.per_list(run, metric, k=cut, empty="zero", judgments=judgments)
    assert ours.keys() == expected.keys()
    for query, value in expected.items():
        assert math.isclose(ours[query], value, abs_tol=module.EXTERNAL_TOLERANCE), (query, ours[query], value)
