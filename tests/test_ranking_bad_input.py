"""Bad input to ranking metrics gets a clear error (the same from both engines); odd but
valid input (one-item lists, all scores tied, a run that misses every judgment) gets a
defined result."""

from __future__ import annotations

import math

import polars as pl
import pytest

import sqlmetrics as sm

ROLES = {"label": "rel", "score": "score", "query": "q"}
IMPRESSIONS = pl.DataFrame(
    {"q": [1, 1, 1, 2, 2], "doc": ["a", "b", "c", "a", "d"], "score": [0.9, 0.5, 0.1, 0.4, 0.3], "rel": [2, 0, 1, 0, 1]}
)
RUN = pl.DataFrame({"q": ["x", "x", "y"], "doc": ["a", "b", "a"], "score": [0.9, 0.5, 0.4]})
JUDGMENTS = pl.DataFrame({"q": ["x", "x", "y"], "doc": ["a", "c", "a"], "rel": [1, 2, 0]})
RUN_ROLES = {**ROLES, "item": "doc"}


def test_negative_relevance_names_column_count_and_example(engine):
    frame = IMPRESSIONS.with_columns(rel=pl.Series([2, -1, 1, -3, 1]))
    message = r"label column 'rel' must be a finite relevance >= 0 \(for ndcg_at_3\): 2 rows are not, e\.g\. -3$"
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.evaluate(frame, ["ndcg@3"], **ROLES, engine=engine)


def test_negative_relevance_in_judgments(engine):
    judgments = JUDGMENTS.with_columns(rel=pl.Series([1, -2, 0]))
    message = r"judgments column 'rel' must be a finite relevance >= 0: 1 row is not, e\.g\. -2$"
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.evaluate(RUN, ["map"], **RUN_ROLES, judgments=judgments, engine=engine)


def test_null_in_judgments(engine):
    judgments = JUDGMENTS.with_columns(rel=pl.Series([1, None, 0]))
    message = r"relevance in every row: 1 row does not, e\.g\. query, item = x, c"
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.evaluate(RUN, ["map"], **RUN_ROLES, judgments=judgments, engine=engine)


def test_repeated_judgment(engine):
    judgments = pl.concat([JUDGMENTS, JUDGMENTS.head(1)])
    message = r"judge each \(query, item\) once: 1 pair is judged more than once, e\.g\. query, item = x, a"
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.evaluate(RUN, ["map"], **RUN_ROLES, judgments=judgments, engine=engine)


def test_repeated_item_in_a_run(engine):
    run = pl.concat([RUN, RUN.tail(1).with_columns(score=pl.lit(0.1))])
    with pytest.raises(sm.InvalidInputError, match=r"rank each item once per query: 1 \(query, item\) .* = y, a"):
        sm.evaluate(run, ["map"], **RUN_ROLES, judgments=JUDGMENTS, engine=engine)


def test_the_same_item_in_two_slices_of_a_run_is_two_lists(engine):
    two_runs = pl.concat([RUN.with_columns(system=pl.lit("s1")), RUN.with_columns(system=pl.lit("s2"))])
    result = sm.evaluate(two_runs, ["map"], **RUN_ROLES, judgments=JUDGMENTS, by="system", engine=engine)
    alone = sm.evaluate(RUN, ["map"], **RUN_ROLES, judgments=JUDGMENTS, engine=engine)
    assert result["map"].to_list() == [alone["map"].item()] * 2


@pytest.mark.parametrize(
    ("metric", "message"),
    [
        ("ndcg@0", r"ndcg: parameter 'k' must be an integer >= 1, got 0"),
        ("ndcg@ten", r"ndcg: parameter 'k' must be an integer >= 1, got 'ten'"),
        ("hit_rate@-2", r"hit_rate: parameter 'k' must be an integer >= 1, got -2"),
        ("precision@k", r"precision@k: parameter 'k' is required \(e\.g\. 'precision@10'\)"),
    ],
)
def test_bad_k(metric, message):
    with pytest.raises(sm.InvalidParameterError, match=message):
        sm.evaluate(IMPRESSIONS, [metric], **ROLES)


def test_fractional_k():
    with pytest.raises(sm.InvalidParameterError, match=r"mrr: parameter 'k' must be an integer >= 1, got 2\.5"):
        sm.metric("mrr", k=2.5)


def test_ties_by_item_need_an_item_column():
    with pytest.raises(sm.InvalidParameterError, match=r"ndcg_at_3_item break ties by item: pass item="):
        sm.evaluate(IMPRESSIONS, [sm.metric("ndcg@3", ties="item")], **ROLES)


def test_ranking_metrics_take_no_weights():
    frame = IMPRESSIONS.with_columns(w=pl.lit(1.0))
    with pytest.raises(sm.InvalidParameterError, match=r"mrr take no row weights"):
        sm.evaluate(frame, ["auc", "mrr"], **ROLES, weight="w")


def test_judgments_are_for_ranking_metrics_only():
    with pytest.raises(
        sm.InvalidParameterError, match=r"judgments give relevance to ranking metrics only; evaluate auc"
    ):
        sm.evaluate(RUN, ["map", "auc"], **RUN_ROLES, judgments=JUDGMENTS)


def test_judgments_need_item_and_query():
    with pytest.raises(sm.InvalidParameterError, match=r"joined to the run by query and item"):
        sm.evaluate(RUN, ["map"], **ROLES, judgments=JUDGMENTS)


def test_missing_judgments_column_is_named(engine):
    with pytest.raises(
        sm.ColumnNotFoundError, match=r"label column 'rel' not found; the judgments have: q, doc, grade"
    ):
        sm.evaluate(RUN, ["map"], **RUN_ROLES, judgments=JUDGMENTS.rename({"rel": "grade"}), engine=engine)


def test_precision_is_classification_and_precision_at_k_ranking():
    assert sm.metric("precision").spec.family == "classification"
    assert sm.metric("precision@5").spec.family == "ranking"
    assert sm.metric("precision", k=5).column == "precision_at_5"


def test_one_item_lists_and_all_tied_lists_are_defined(engine):
    # q1: one relevant item; q2: three items tied, one relevant: E[1/rank] = (1 + 1/2 + 1/3)/3
    frame = pl.DataFrame({"q": [1, 2, 2, 2], "score": [0.3, 0.5, 0.5, 0.5], "rel": [1, 0, 1, 0]})
    result = sm.evaluate(frame, ["mrr", "ndcg", "hit_rate@1", "rank_corr"], **ROLES, engine=engine)
    row = result.row(0, named=True)
    assert row["mrr"] == pytest.approx((1 + (1 + 1 / 2 + 1 / 3) / 3) / 2)
    assert row["hit_rate_at_1"] == pytest.approx((1 + 1 / 3) / 2)
    # every pair of q2 is tied in score (1/2 each); q1 has no pair: skipped
    assert (row["rank_corr"], row["rank_corr_queries"], row["rank_corr_skipped"]) == (0.5, 1, 1)


def test_a_run_without_any_judged_item_retrieved(engine):
    judgments = pl.DataFrame({"q": ["x", "y"], "doc": ["z", "z"], "rel": [1, 0]})
    result = sm.evaluate(RUN, ["ndcg", "map", "recall@2"], **RUN_ROLES, judgments=judgments, engine=engine)
    row = result.row(0, named=True)
    # x: its relevant item is never retrieved (0); y: no relevant item (skipped)
    assert [row[c] for c in ("ndcg", "ndcg_queries", "ndcg_skipped", "map", "recall_at_2")] == [0.0, 1, 1, 0.0, 0.0]


@pytest.mark.parametrize("k", [100, 101, 999_999, 1_000_000, 5_000_000, 2**63 - 1])
def test_k_beyond_every_list_around_duckdbs_top_k_limit(engine, k):
    # DuckDB's top-k aggregate serves k <= 100 (it reserves k slots per list and refuses k >=
    # 1,000,000); every larger k takes the k-th score by rank.
    # A k beyond every list cuts nothing: ndcg@k and map@k equal their uncut values, and
    # precision@k is (relevant items in the list) / k averaged over the queries with one:
    # q1 holds 2 relevant items, q2 1, so (2/k + 1/k) / 2.
    result = sm.evaluate(
        IMPRESSIONS, [f"ndcg@{k}", f"map@{k}", f"precision@{k}", "ndcg", "map"], **ROLES, engine=engine
    )
    row = result.row(0, named=True)
    assert row[f"ndcg_at_{k}"] == pytest.approx(row["ndcg"], rel=1e-12)
    assert row[f"map_at_{k}"] == pytest.approx(row["map"], rel=1e-12)
    assert row[f"precision_at_{k}"] == pytest.approx((2 / k + 1 / k) / 2, rel=1e-12)


def test_large_k_engines_agree():
    calls = ["ndcg@999999", "ndcg@1000000", "hit_rate@1000001", "mrr@1000000"]
    duck, polars_result = (sm.evaluate(IMPRESSIONS, calls, **ROLES, engine=e) for e in ("duckdb", "polars"))
    assert duck.columns == polars_result.columns
    for column in duck.columns:
        assert duck[column].to_list() == pytest.approx(polars_result[column].to_list(), rel=1e-12)


@pytest.mark.parametrize("k", [2**63, 2**64])
def test_k_beyond_64_bits_states_the_bound(engine, k):
    message = (
        rf"ndcg: parameter 'k' must be at most 9,223,372,036,854,775,807 in magnitude \(a 64-bit integer\), got {k}"
    )
    with pytest.raises(sm.InvalidParameterError, match=message):
        sm.evaluate(IMPRESSIONS, [f"ndcg@{k}"], **ROLES, engine=engine)


@pytest.mark.parametrize(("name", "column"), [("item", "doc"), ("query", "q")])
def test_judgments_keyed_by_other_kinds_of_values_than_the_run(engine, name, column):
    message = (
        rf"{name} column '{column}' of the run holds strings and {name} column '{column}' of the judgments holds "
        "numbers: the judgments are joined to the run by query and item, so both must be numbers or both strings"
    )
    with pytest.raises(sm.SqlMetricsError, match=message):
        sm.evaluate(
            RUN, ["ndcg"], **RUN_ROLES, judgments=JUDGMENTS.with_columns(pl.Series(column, [1, 2, 3])), engine=engine
        )


def test_relevance_beyond_exponential_gain_bound(engine):
    # 2^2000 is inf in float64: the bound 960 keeps every DCG sum finite (see rules/columns.py)
    frame = IMPRESSIONS.with_columns(rel=pl.Series([2000, 0, 1, 0, 961]))
    message = (
        r"label column 'rel' must be a relevance <= 960 under exponential gain \(2\^rel - 1 overflows beyond\)"
        r" \(for ndcg, cg_at_2\): 2 rows are not, e\.g\. 961$"
    )
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.evaluate(frame, ["ndcg", "cg@2", sm.metric("dcg", gain="linear")], **ROLES, engine=engine)


def test_relevance_at_the_exponential_gain_bound_is_finite(engine):
    frame = IMPRESSIONS.with_columns(rel=pl.Series([960, 0, 960, 0, 1]))
    result = sm.evaluate(frame, ["ndcg", "dcg"], **ROLES, engine=engine)
    # q1: 960 at positions 1 and 3, ideal at 1 and 2: (1 + 1/2) / (1 + 1/log2(3)), the -1 of the gain
    # vanishing in 2^960; q2: rel 1 at position 2, ideal position 1: 1/log2(3)
    expected_ndcg = ((1 + 1 / 2) / (1 + 1 / math.log2(3)) + 1 / math.log2(3)) / 2
    assert result["ndcg"].item() == pytest.approx(expected_ndcg, rel=1e-12)
    assert math.isfinite(result["dcg"].item())


def test_relevance_beyond_linear_gain_bound(engine):
    frame = IMPRESSIONS.with_columns(rel=pl.Series([1e300, 0, 1, 0, 1]))
    message = (
        r"label column 'rel' must be a relevance <= 2\^960 under linear gain \(sums of gains overflow beyond\)"
        r" \(for ndcg_linear\): 1 row is not, e\.g\. 1e\+300"
    )
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.evaluate(frame, [sm.metric("ndcg", gain="linear"), "map"], **ROLES, engine=engine)


def test_large_relevance_without_gain_is_valid(engine):
    # map reads relevance only through label >= min_relevance: 2000 is just relevant
    frame = IMPRESSIONS.with_columns(rel=pl.Series([2000, 0, 1, 0, 1]))
    # q1: relevant at 1 and 3: (1/1 + 2/3) / 2; q2: relevant at 2: 1/2
    expected = ((1 + 2 / 3) / 2 + 1 / 2) / 2
    assert sm.evaluate(frame, ["map"], **ROLES, engine=engine)["map"].item() == pytest.approx(expected)


def test_frame_function_refuses_as_evaluate():
    import sqlmetrics.polars as smp

    frame = IMPRESSIONS.with_columns(rel=pl.Series([2000, 0, 1, 0, 1]))
    message = r"must be a relevance <= 960 under exponential gain .* \(for ndcg\): 1 row is not, e\.g\. 2000$"
    with pytest.raises(sm.InvalidInputError, match=message):
        smp.ndcg(frame, score="score", label="rel", query="q")


def test_relevance_beyond_the_gain_bound_in_judgments(engine):
    # "c" is judged but not retrieved: its relevance still feeds the ideal DCG
    judgments = JUDGMENTS.with_columns(rel=pl.Series([1, 2000, 0]))
    message = (
        r"judgments column 'rel' must be a relevance <= 960 under exponential gain \(2\^rel - 1 overflows beyond\)"
        r" \(for ndcg\): 1 row is not, e\.g\. 2000$"
    )
    with pytest.raises(sm.InvalidInputError, match=message):
        sm.evaluate(RUN, ["ndcg", "map"], **RUN_ROLES, judgments=judgments, engine=engine)
    result = sm.evaluate(RUN, ["map"], **RUN_ROLES, judgments=judgments, engine=engine)
    assert result["map"].item() == pytest.approx(1 / 2)  # x: relevant a at 1 of R = 2; y: no relevant, skipped


def test_micro_precision_when_k_times_the_lists_passes_2_to_the_32(engine):
    # 70,000 one-row lists, each row relevant, k = 100,000: pooled precision is
    # 70,000 hits / (k · 70,000 lists) = 1e-5; k · lists = 7e9 wrapped in polars' UInt32
    lists = pl.DataFrame({"q": range(70_000), "score": [0.5] * 70_000, "rel": [1] * 70_000})
    call = sm.metric("precision@100000", average="micro")
    result = sm.evaluate(lists, [call], label="rel", score="score", query="q", engine=engine)
    assert result[call.column].item() == pytest.approx(1e-5, rel=1e-12)
    if engine == "polars":
        import sqlmetrics.polars as smp

        face = smp.precision_at_k(lists, score="score", label="rel", query="q", k=100_000, average="micro")
        assert face[call.column].item() == pytest.approx(1e-5, rel=1e-12)
