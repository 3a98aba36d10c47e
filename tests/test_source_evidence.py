"""The two plans of the score-histogram metrics (``sqlmetrics/engines/source_evidence.py``): by
distinct score, or row by row when the scores are nearly all distinct. Both are forced on
the same data, with ties, weights, slices and NULLs, and must give the same numbers (and
scikit-learn's, for auc and average_precision) and refuse bad input with the same
message; the evidence must pick the row plan for continuous scores and the histogram
for tied ones."""

from __future__ import annotations

import numpy as np
import polars as pl
import polars.testing
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import sqlmetrics as sm
from sqlmetrics.engines import source_evidence
from sqlmetrics.errors import InvalidInputError
from sqlmetrics.metrics.ranking import list_sql as lists

METRICS = ["auc", "average_precision", "logloss", "calibration", "brier", sm.metric("precision", threshold=0.3)]
VALUES = ["auc", "average_precision", "logloss", "calibration", "brier", "precision_threshold_0p3"]


def _frame(rows: int = 4000, seed: int = 7) -> pl.DataFrame:
    """Scores rounded to 2 decimals (many ties across both classes), two slices, weights
    and a few NULL scores."""
    rng = np.random.default_rng(seed)
    score = np.round(rng.random(rows), 2)
    label = (rng.random(rows) < score).astype(np.int64)
    frame = pl.DataFrame(
        {"day": rng.integers(0, 2, rows), "y": label, "p": score, "w": rng.integers(1, 4, rows).astype(float)}
    )
    return frame.with_columns(p=pl.when(pl.int_range(pl.len()) % 97 == 0).then(None).otherwise(pl.col("p")))


def _forced(monkeypatch, distinct: bool, source, **kwargs) -> pl.DataFrame:
    monkeypatch.setattr(source_evidence, "distinct_scores", lambda source, column: distinct)
    return sm.evaluate(source, METRICS, label="y", score="p", **kwargs)


@pytest.mark.parametrize("weighted", [False, True])
def test_both_plans_give_the_same_numbers(monkeypatch, engine, weighted):
    frame = _frame()
    kwargs = {"by": "day", "engine": engine, **({"weight": "w"} if weighted else {})}
    histogram = _forced(monkeypatch, False, frame, **kwargs)
    rows = _forced(monkeypatch, True, frame, **kwargs)
    assert rows.select("day", "n_rows", "n_excluded").equals(histogram.select("day", "n_rows", "n_excluded"))
    for name in VALUES:
        assert rows[name].to_list() == pytest.approx(histogram[name].to_list(), abs=1e-9), name
    for day, auc, ap in rows.select("day", "auc", "average_precision").iter_rows():
        used = frame.filter((pl.col("day") == day) & pl.col("p").is_not_null())
        weight = used["w"].to_numpy() if weighted else None
        assert auc == pytest.approx(roc_auc_score(used["y"], used["p"], sample_weight=weight), abs=1e-9)
        assert ap == pytest.approx(average_precision_score(used["y"], used["p"], sample_weight=weight), abs=1e-9)


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [("y", 2, "label"), ("p", float("nan"), "NaN")],
)
def test_both_plans_refuse_bad_input_alike(monkeypatch, engine, column, value, message):
    frame = _frame(200).with_columns(
        pl.when(pl.int_range(pl.len()) == 5).then(value).otherwise(pl.col(column)).alias(column)
    )
    errors = []
    for distinct in (False, True):
        with pytest.raises(InvalidInputError) as error:
            _forced(monkeypatch, distinct, frame, engine=engine)
        errors.append(str(error.value))
    assert errors[0] == errors[1]
    assert message in errors[0]


def test_evidence_picks_rows_for_continuous_scores(tmp_path):
    """Continuous float64 scores barely compress in Parquet and are distinct in a frame;
    scores rounded to 4 decimals compress to well under half and repeat."""
    rng = np.random.default_rng(0)
    score = rng.beta(2, 20, 200_000)
    frame = pl.DataFrame({"continuous": score, "rounded": np.round(score, 4), "y": rng.integers(0, 2, score.size)})
    path = tmp_path / "scores.parquet"
    frame.write_parquet(path)
    assert source_evidence.distinct_scores(str(path), "continuous")
    assert not source_evidence.distinct_scores(str(path), "rounded")
    assert source_evidence.distinct_scores(frame, "continuous")
    assert not source_evidence.distinct_scores(frame, "rounded")
    assert source_evidence.distinct_scores(frame.to_arrow(), "continuous")
    assert not source_evidence.distinct_scores("a_table_name", "continuous")  # no evidence: the histogram
    assert not source_evidence.distinct_scores(str(tmp_path / "missing.parquet"), "continuous")


def test_a_bootstrap_of_sums_reads_the_resampled_rows_not_a_histogram_per_replicate():
    """logloss and calibration resampled are sums over the rows: a histogram per replicate
    would hold every distinct score R times (5 GB at 2M rows of 4-decimal scores × 200
    resamples), so their plan is the rows'; auc, which sorts the scores, keeps the
    evidence's choice. Both plans give the same numbers (test_both_plans_give_the_same_numbers)."""
    from sqlmetrics.api import prepare
    from sqlmetrics.request import Request

    frame = pl.DataFrame({"label": [0, 1] * 50, "score": [round(i / 100, 1) for i in range(100)]})  # repeated
    request = Request(label="label", score="score", ci=0.9, ci_method="bootstrap", resamples=5)
    sums, _ = prepare(["logloss", "calibration"], request)
    assert source_evidence.planned(sums, frame).distinct_scores
    sorted_scores, _ = prepare(["logloss", "auc"], request)
    assert not source_evidence.planned(sorted_scores, frame).distinct_scores
    unresampled, _ = prepare(["logloss"], Request(label="label", score="score"))
    assert not source_evidence.planned(unresampled, frame).distinct_scores


def test_the_row_count_comes_from_footers_or_the_frame(tmp_path):
    frame = _frame(rows=1000)
    frame.head(600).write_parquet(tmp_path / "a.parquet")
    frame.tail(400).write_parquet(tmp_path / "b.parquet")
    assert source_evidence.source_rows(tmp_path) == 1000
    assert source_evidence.source_rows(frame) == 1000
    assert source_evidence.source_rows(frame.to_arrow()) == 1000
    assert source_evidence.source_rows(frame.lazy()) is None  # no evidence without reading
    assert source_evidence.source_rows(tmp_path / "missing" / "*.parquet") is None  # the engine reports it


def _ranking_frame(lists: int = 300, seed: int = 11) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = lists * 12
    return pl.DataFrame(
        {
            "q": rng.integers(0, lists, n),
            "s": np.round(rng.random(n), 2),  # ties at the cutoff
            "rel": rng.integers(0, 3, n),
        }
    )


def test_list_floors_take_the_top_k_aggregate_only_while_k_slots_per_list_fit(monkeypatch, tmp_path):
    """DuckDB's top-k aggregate keeps k scores for every list: used when the rows bound the
    lists to few enough slots, else the rank form, which spills; the same numbers either way."""
    frame = _ranking_frame()
    path = tmp_path / "run.parquet"
    frame.write_parquet(path)
    metrics = ["ndcg@10", "hit_rate@3", "precision@5"]
    roles = {"label": "rel", "score": "s", "query": "q"}
    fits = sm.to_sql(metrics, source=path, **roles)
    assert "list_min(max(score, 10))" in fits and "score_rank" not in fits
    monkeypatch.setattr(lists, "DUCKDB_TOP_K_SLOTS", frame.height * 10 - 1)
    spills = sm.to_sql(metrics, source=path, **roles)
    assert "score_rank <= 10" in spills and "list_min" not in spills
    assert "score_rank" in sm.to_sql(metrics, source="a_table", **roles)  # no row count: the rank form
    ranked = sm.evaluate(path, metrics, **roles)
    monkeypatch.undo()
    topk = sm.evaluate(path, metrics, **roles)
    # the same numbers up to the order of a floating-point sum (DuckDB 1.4 differs in the last bit)
    polars.testing.assert_frame_equal(ranked, topk, check_exact=False, abs_tol=1e-12, rel_tol=0)
    polars.testing.assert_frame_equal(topk, sm.evaluate(path, metrics, **roles, engine="polars"), abs_tol=1e-12)
