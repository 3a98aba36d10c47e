"""The ranking scale tier: every registered ranking metric on large data, through
``sm.evaluate`` on both engines (reading Parquet files written by polars, pyarrow and DuckDB)
and through each ``sqlmetrics.polars`` frame function, against independent references:

* ranx (``ndcg`` linear and ``ndcg_burges`` exponential, ``mrr``, ``map``, ``hit_rate``,
  ``precision``, ``recall``), which compute those numbers the same way on tie-free lists with
  integer relevance and min_relevance=1 (see tests/ranking_reference.py);
* a vectorised numpy brute force per list otherwise (``dcg``, ``cg``, micro averages,
  ``min_relevance`` other than 1, ``rank_corr``: pairs counted by sorting, O(n log n)).

Continuous float64 scores are tie-free (asserted), so every tie policy is the plain order
there. One variant rounds the 2M-row scores (heavy ties) for ``ties="average"``: the
permutation reference of tests/ranking_reference.py cannot enumerate tie groups of
thousands of rows, so there the metrics linear in each row's expected position share
(cg, dcg, ndcg, precision, recall) are checked against the closed form of that share in
numpy, and every metric must agree across the three faces.

The data (generated here, never committed): (a) one list of 300k rows, graded relevance
0..4 correlated with the score, ~80% relevant; (b) 2M rows over Zipf-distributed queries
(one query holds about a quarter of the rows, most hold one or two).
"""

from __future__ import annotations

import math

import duckdb
import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
import ranx

import sqlmetrics as sm
import sqlmetrics.polars as smp

import ranking_reference as rr

pytestmark = pytest.mark.scale

SINGLE_ROWS = 300_000
ZIPF_ROWS = 2_000_000
ROLES = {"label": "rel", "score": "score", "query": "q"}
RANKING = sorted(name for name, spec in sm.registry().items() if spec.family == "ranking")
# ranx metric name -> (our metric, the parameters it matches)
RANX = {
    "ndcg": ("ndcg", {"gain": "linear"}),
    "ndcg_burges": ("ndcg", {"gain": "exponential"}),
    "mrr": ("mrr", {}),
    "map": ("map", {}),
    "hit_rate": ("hit_rate", {}),
    "precision": ("precision@k", {}),
    "recall": ("recall@k", {}),
}
CUTOFFS = (10, 1000)


# --- data -----------------------------------------------------------------------------------------------------------


def _impressions(rng: np.random.Generator, queries: np.ndarray) -> pl.DataFrame:
    score = rng.random(len(queries))
    rel = np.clip(np.floor(5 * (0.6 * score + 0.4 * rng.random(len(queries)))), 0, 4)
    return pl.DataFrame({"q": queries, "score": score, "rel": rel.astype(np.int64)})


def _write_parquet(frame: pl.DataFrame, directory) -> str:
    """The rows in three Parquet files, one per writer (polars, pyarrow, DuckDB); returns a glob."""
    directory.mkdir()
    thirds = np.array_split(np.arange(frame.height), 3)
    frame[thirds[0]].write_parquet(directory / "polars.parquet")
    pq.write_table(frame[thirds[1]].to_arrow(), directory / "pyarrow.parquet")
    part = frame[thirds[2]]  # noqa: F841 (read by DuckDB's replacement scan)
    duckdb.sql(f"COPY part TO '{directory / 'duckdb.parquet'}' (FORMAT parquet)")
    return str(directory / "*.parquet")


@pytest.fixture(scope="session")
def single_list(tmp_path_factory):
    frame = _impressions(np.random.default_rng(12), np.zeros(SINGLE_ROWS, dtype=np.int64))
    assert frame["score"].n_unique() == frame.height  # tie-free: every tie policy is the plain order
    return frame, _write_parquet(frame, tmp_path_factory.mktemp("rank_scale") / "single")


@pytest.fixture(scope="session")
def zipf_lists(tmp_path_factory):
    rng = np.random.default_rng(2)
    frame = _impressions(rng, rng.zipf(1.3, ZIPF_ROWS).astype(np.int64))
    assert frame["score"].n_unique() == frame.height
    return frame, _write_parquet(frame, tmp_path_factory.mktemp("rank_scale") / "zipf")


@pytest.fixture(scope="session")
def tied_lists(zipf_lists, tmp_path_factory):
    frame = zipf_lists[0].with_columns(pl.col("score").round(2))
    return frame, _write_parquet(frame, tmp_path_factory.mktemp("rank_scale") / "tied")


# --- the calls --------------------------------------------------------------------------------------------------------


def _variants(name: str) -> list[dict]:
    """Parameter sets for one metric: each cutoff (and none, where k is optional), both gains, both
    averages, and min_relevance 1 and 3; ties and empty at their defaults (tie-free data)."""
    params = {p.name: p for p in sm.registry()[name].params}
    grid: list[dict] = [{}]
    if "k" in params:
        cutoffs = CUTOFFS if params["k"].required else (None, *CUTOFFS)
        grid = [{**g, "k": k} for g in grid for k in cutoffs]
    for choice in ("gain", "average"):
        if choice in params:
            grid = [{**g, choice: value} for g in grid for value in params[choice].choices]
    if "min_relevance" in params:
        grid += [{**grid[-1], "min_relevance": 3.0}]
    return grid


CALLS = [(name, params) for name in RANKING for params in _variants(name)]
# On the 2M rows, each metric's first and last variants (defaults at the first cutoff; the other
# gain/average with min_relevance 3): the full grid there costs minutes and adds no code path
# that the 300k-row list does not already run.
ZIPF_CALLS = [
    (name, params) for name in RANKING for i, params in enumerate(_variants(name)) if i in (0, len(_variants(name)) - 1)
]


def _column(name: str, params: dict) -> str:
    return sm.metric(name, **params).column


def _evaluate(source, engine: str, calls=CALLS, **extra) -> dict[str, float]:
    result = sm.evaluate(source, [sm.metric(n, **p, **extra) for n, p in calls], **ROLES, engine=engine)
    return result.row(0, named=True)


# --- the numpy reference ----------------------------------------------------------------------------------------------


class Lists:
    """Every list of a frame in rank order (query, then score descending; tie-free), as numpy arrays."""

    def __init__(self, frame: pl.DataFrame, order_by: str = "score"):
        q, s, rel = frame["q"].to_numpy(), frame[order_by].to_numpy(), frame["rel"].to_numpy().astype(float)
        order = np.lexsort((-s, q))
        self.q, self.score, self.rel = q[order], s[order], rel[order]
        self.starts = np.flatnonzero(np.r_[True, self.q[1:] != self.q[:-1]])
        self.sizes = np.diff(np.r_[self.starts, len(self.q)])
        self.list_of_row = np.repeat(np.arange(len(self.starts)), self.sizes)
        self.position = np.arange(len(self.q)) - self.starts[self.list_of_row] + 1
        ideal = np.lexsort((-self.rel, self.q))  # the ideal order: relevance descending within each list
        self.ideal_rel = self.rel[ideal]

    def per_list(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.list_of_row, weights=values, minlength=len(self.starts))

    def relevant(self, min_relevance: float) -> np.ndarray:
        return self.per_list((self.rel >= min_relevance).astype(float))


def _gain(rel: np.ndarray, gain: str) -> np.ndarray:
    return rel if gain == "linear" else np.exp2(rel) - 1


def _within(lists: Lists, k) -> np.ndarray:
    return lists.position <= (k if k is not None else np.inf)


def _dcg(lists: Lists, rel: np.ndarray, k, gain: str) -> np.ndarray:
    return lists.per_list(_gain(rel, gain) / np.log2(lists.position + 1) * _within(lists, k))


def _hits(lists: Lists, k, min_relevance: float) -> np.ndarray:
    return lists.per_list(((lists.rel >= min_relevance) & _within(lists, k)).astype(float))


def _concordance(lists: Lists) -> np.ndarray:
    """Per list, pairs ordered by score as by label (label ties ½; scores are tie-free): for each row,
    the rows of its list ranked below it (lower score) with a lower label, from running counts per label level."""
    levels = np.unique(lists.rel)
    level = np.searchsorted(levels, lists.rel)
    below = np.zeros(len(lists.rel))
    # rows are sorted by score descending: rows after this one in its list have lower scores
    for lv in range(len(levels)):
        at_level = (level == lv).astype(np.int64)
        through = np.cumsum(at_level)
        list_end = through[lists.starts + lists.sizes - 1][lists.list_of_row]
        after = list_end - through  # rows of this level after this row in its list
        below += np.where(level > lv, after, 0)
    concordant = lists.per_list(below)
    label_ties = np.zeros(len(lists.starts))
    for lv in range(len(levels)):
        c = lists.per_list((level == lv).astype(float))
        label_ties += c * (c - 1) / 2
    return concordant + label_ties / 2


# The metrics the vectorised reference below computes; any other ranking metric is checked
# against its own per-list reference (tests/metrics/ranking/<metric>.py), one list at a time.
VECTORISED = ("cg", "dcg", "ndcg", "rank_corr", "precision@k", "recall@k", "hit_rate", "mrr", "map")


def per_list_reference(lists: Lists, name: str, params: dict) -> float:
    """The metric's PER_ORDER over each tie-free list in score order, ``empty="skip"``."""
    metric = rr.reference_name(name)
    p = rr.call_params(metric, **params)
    values = []
    for start, size in zip(lists.starts, lists.sizes):
        rel = lists.rel[start : start + size].tolist()
        if any(label >= p.min_relevance for label in rel):
            values.append(rr.PER_ORDER[metric](rel, rel, p))
    return math.fsum(values) / len(values)


def reference(lists: Lists, name: str, params: dict) -> float:
    """The metric over tie-free ``lists``, ``empty="skip"``."""
    if name not in VECTORISED:
        return per_list_reference(lists, name, params)
    k, gain = params.get("k"), params.get("gain", "exponential")
    min_relevance, average = params.get("min_relevance", 1.0), params.get("average", "macro")
    relevant = lists.relevant(min_relevance)
    used = relevant > 0
    if name in ("dcg", "ndcg", "cg"):
        if name == "cg":
            per_list = lists.per_list(_gain(lists.rel, gain) * _within(lists, k))
        else:
            per_list = _dcg(lists, lists.rel, k, gain)
        if name == "ndcg":
            per_list = per_list / np.where(used, _dcg(lists, lists.ideal_rel, k, gain), 1.0)
        return per_list[used].mean()
    if name == "rank_corr":
        used &= lists.sizes >= 2
        n = lists.sizes.astype(float)
        return (_concordance(lists) / (n * (n - 1) / 2))[used].mean()
    hits = _hits(lists, k, min_relevance)
    if name == "precision@k":
        return (hits / k)[used].mean()
    if name == "recall@k" or (name == "hit_rate" and average == "micro"):
        return hits[used].sum() / relevant[used].sum() if average == "micro" else (hits / relevant)[used].mean()
    if name == "hit_rate":
        return (hits > 0)[used].mean()
    is_relevant = (lists.rel >= min_relevance).astype(float)
    if name == "mrr":
        first = np.minimum.reduceat(np.where(is_relevant > 0, lists.position, np.inf), lists.starts)
        return np.where(first <= (k or np.inf), 1 / first, 0.0)[used].mean()
    assert name == "map", name
    through = np.cumsum(is_relevant)
    before_list = (through - is_relevant)[lists.starts][lists.list_of_row]
    precision_at = (through - before_list) / lists.position
    return (lists.per_list(precision_at * is_relevant * _within(lists, k)) / np.where(used, relevant, 1.0))[used].mean()


def ranx_values(frame: pl.DataFrame, metrics: list[str]) -> dict[str, float]:
    """ranx's means over the lists with a relevant item (ours skips the others; ranx scores them 0)."""
    frame = frame.with_columns(q=pl.col("q").cast(pl.String), doc=pl.int_range(pl.len()).cast(pl.String))
    table = frame.to_pandas().astype({"q": object, "doc": object})  # ranx wants object ids
    qrels = ranx.Qrels.from_df(table, q_id_col="q", doc_id_col="doc", score_col="rel")
    run = ranx.Run.from_df(table, q_id_col="q", doc_id_col="doc", score_col="score")
    ranx.evaluate(qrels, run, metrics)
    relevant = set(frame.filter(pl.col("rel") >= 1)["q"].unique())
    return {m: float(np.mean([v for q, v in run.scores[m].items() if q in relevant])) for m in metrics}


# --- the tests --------------------------------------------------------------------------------------------------------


def _assert_close(actual: float, expected: float, what: str) -> None:
    assert math.isfinite(actual), what
    assert actual == pytest.approx(expected, rel=1e-9, abs=1e-9), what


@pytest.fixture(scope="session", params=["single", "zipf"])
def dataset(request, single_list, zipf_lists):
    """(frame, Parquet glob, the calls checked on it)."""
    return {"single": (*single_list, CALLS), "zipf": (*zipf_lists, ZIPF_CALLS)}[request.param]


@pytest.fixture(scope="session")
def references(dataset) -> dict[str, float]:
    frame, _, calls = dataset
    lists = Lists(frame)
    return {_column(name, params): reference(lists, name, params) for name, params in calls}


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_every_ranking_metric_on_parquet(dataset, references, engine):
    _, source, calls = dataset
    result = _evaluate(source, engine, calls)
    for column, expected in references.items():
        _assert_close(result[column], expected, f"{engine} {column}")


def test_frame_functions(dataset, references):
    frame, _, _ = dataset
    for name in RANKING:
        params = _variants(name)[-1]
        function = getattr(smp, name.replace("@k", "_at_k"))
        actual = function(frame, **ROLES, **params).item(0, 0)
        _assert_close(actual, references[_column(name, params)], f"smp.{name} {params}")


def test_numpy_reference_equals_ranx(single_list):
    """The numpy reference is itself checked against ranx where ranx defines the same number,
    on the 300k-row list (ranx on the 2M Zipf rows alone takes minutes: its ids are Python dicts)."""
    lists = Lists(single_list[0])
    references = {_column(name, params): reference(lists, name, params) for name, params in CALLS}
    names = [f"{metric}@{k}" for metric in RANX for k in CUTOFFS]
    expected = ranx_values(single_list[0], names)
    for metric, (name, params) in RANX.items():
        for k in CUTOFFS:
            column = _column(name, {**params, "k": k})
            _assert_close(references[column], expected[f"{metric}@{k}"], f"{column} vs ranx {metric}@{k}")


def _expected_share(frame: pl.DataFrame, name: str, params: dict) -> float:
    """Under ties="average", closed forms of the metrics linear in each row's expected position share: a
    peer group at positions a..e (g rows) gives each row the mean of the per-position term over a..e."""
    lists = Lists(frame)
    k, gain = params.get("k"), params.get("gain", "exponential")
    new_peer = np.r_[True, (lists.q[1:] != lists.q[:-1]) | (lists.score[1:] != lists.score[:-1])]
    peer = np.cumsum(new_peer) - 1
    first = np.minimum.reduceat(lists.position, np.flatnonzero(new_peer))[peer]
    last = np.maximum.reduceat(lists.position, np.flatnonzero(new_peer))[peer]
    end = np.minimum(last, k) if k is not None else last
    inside = np.maximum(end - first + 1, 0)
    discount = np.r_[0.0, np.cumsum(1 / np.log2(np.arange(1, lists.position.max() + 1) + 1))]
    shared = np.where(inside > 0, discount[np.maximum(end, first - 1)] - discount[first - 1], 0.0)
    used = lists.relevant(1.0) > 0
    if name in ("precision@k", "recall@k"):
        hits = lists.per_list((lists.rel >= 1) * inside / (last - first + 1))
        per_list = hits / k if name == "precision@k" else hits / np.where(used, lists.relevant(1.0), 1.0)
    elif name == "cg":
        per_list = lists.per_list(_gain(lists.rel, gain) * inside / (last - first + 1))
    else:
        per_list = lists.per_list(_gain(lists.rel, gain) * shared / (last - first + 1))
        if name == "ndcg":
            per_list = per_list / np.where(used, _dcg(lists, lists.ideal_rel, k, gain), 1.0)
    return per_list[used].mean()


def test_heavy_ties_average(tied_lists):
    frame, source = tied_lists
    calls = [(name, _variants(name)[0]) for name in RANKING]
    duck, polars_engine = _evaluate(source, "duckdb", calls), _evaluate(source, "polars", calls)
    for name, params in calls:
        column = _column(name, params)
        frame_value = getattr(smp, name.replace("@k", "_at_k"))(frame, **ROLES, **params).item(0, 0)
        _assert_close(duck[column], polars_engine[column], f"duckdb vs polars {column}")
        _assert_close(frame_value, polars_engine[column], f"smp vs polars {column}")
        if name in ("cg", "dcg", "ndcg", "precision@k", "recall@k"):
            _assert_close(duck[column], _expected_share(frame, name, params), f"closed form {column}")
