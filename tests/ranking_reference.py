"""Brute-force reference for the ranking metrics, plus adapters to pytrec_eval, ranx and scikit-learn.

A *list* is one query's retrieved rows (score, label, item) together with the labels of every judged item of
that query; the ideal ranking (IDCG) and R, the number of relevant judged items, come from those judged labels.
Two input shapes build the lists:

* impressions (`judgments=None`): `rows` has query, score, label and optionally item; a list's judged labels
  are its own rows' labels.
* judgments + run: `rows` is the run (query, item, score), `judgments` has (query, item, label). A run item
  without a judgment has label 0; the judged labels are ALL judged items of the query, retrieved or not; a run
  query without any judgment is left out entirely (neither used nor skipped). Lists = distinct run queries.

The code favours being obviously right over being fast: `ties="average"` enumerates every order of the tied
rows (the product of the permutations of each group of equal scores), so lists must stay small (<= 9 rows).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from statistics import fmean

import polars as pl
import pytrec_eval
import ranx
from sklearn import metrics as skm

GAINS: dict[str, Callable[[float], float]] = {
    "exponential": lambda rel: 2.0**rel - 1.0,
    "linear": lambda rel: rel,
}
# Within a group of equal scores: (sort key, descending). "average" is not a fixed order: see _orders.
TIE_BREAKS = {
    "pessimistic": (attrgetter("label"), False),
    "optimistic": (attrgetter("label"), True),
    "item": (attrgetter("item"), True),
}
TIES = ("average", *TIE_BREAKS)
EMPTY = ("skip", "zero")
MICRO_METRICS = ("hit_rate", "precision", "recall")

# trec_eval measure (with {K} where it takes a cutoff) -> our metric.
TREC_MEASURES = {
    "ndcg_cut_{K}": "ndcg",
    "map": "map",
    "map_cut_{K}": "map",
    "recip_rank": "mrr",
    "P_{K}": "precision",
    "recall_{K}": "recall",
    "success_{K}": "hit_rate",
}
# ranx metric -> our metric and the gain it matches (None: no gain).
RANX_METRICS = {
    "ndcg": ("ndcg", "linear"),
    "ndcg_burges": ("ndcg", "exponential"),
    "mrr": ("mrr", None),
    "map": ("map", None),
    "hit_rate": ("hit_rate", None),
    "precision": ("precision", None),
    "recall": ("recall", None),
}


@dataclass(frozen=True)
class Row:
    score: float
    label: float
    item: object  # None in impressions without an item column


@dataclass(frozen=True)
class RankedList:
    """One query: its retrieved rows, and the labels of every judged item (for the ideal ranking and R)."""

    rows: tuple[Row, ...]
    judged: tuple[float, ...]


@dataclass(frozen=True)
class Params:
    k: int | None
    gain: str
    ties: str
    min_relevance: float
    empty: str


# --- building the lists -----------------------------------------------------------------------------------------


def _impression_lists(rows: pl.DataFrame) -> dict[object, RankedList]:
    """Group impressions by query; a list's judged labels are its own labels."""
    grouped = defaultdict(list)
    for r in rows.iter_rows(named=True):
        grouped[r["query"]].append(Row(float(r["score"]), float(r["label"]), r.get("item")))
    return {query: RankedList(tuple(rs), tuple(row.label for row in rs)) for query, rs in grouped.items()}


def _run_lists(run: pl.DataFrame, judgments: pl.DataFrame) -> dict[object, RankedList]:
    """Label run rows from the judgments (unjudged = 0); drop run queries that have no judgment at all."""
    labels: dict[object, dict[object, float]] = defaultdict(dict)
    for j in judgments.iter_rows(named=True):
        labels[j["query"]][j["item"]] = float(j["label"])
    grouped = defaultdict(list)
    for r in run.iter_rows(named=True):
        if r["query"] in labels:
            grouped[r["query"]].append(Row(float(r["score"]), labels[r["query"]].get(r["item"], 0.0), r["item"]))
    return {query: RankedList(tuple(rs), tuple(labels[query].values())) for query, rs in grouped.items()}


# --- orders -----------------------------------------------------------------------------------------------------


def _fixed_order(rows: Sequence[Row], ties: str) -> tuple[Row, ...]:
    """Score descending; within equal scores the tie break of `ties` (two stable sorts)."""
    key, descending = TIE_BREAKS[ties]
    return tuple(sorted(sorted(rows, key=key, reverse=descending), key=attrgetter("score"), reverse=True))


def _all_orders(rows: Sequence[Row]) -> Iterator[tuple[Row, ...]]:
    """Every score-descending order: the product of all permutations of each group of equal scores."""
    by_score = sorted(rows, key=attrgetter("score"), reverse=True)
    groups = [tuple(group) for _, group in itertools.groupby(by_score, key=attrgetter("score"))]
    for choice in itertools.product(*(itertools.permutations(group) for group in groups)):
        yield tuple(itertools.chain.from_iterable(choice))


def _orders(rows: Sequence[Row], ties: str) -> Iterator[tuple[Row, ...]]:
    """The orders a metric is averaged over: all of them for ties="average", else the one fixed order."""
    return _all_orders(rows) if ties == "average" else iter([_fixed_order(rows, ties)])


# --- per-list metrics for one fixed order: ranked = labels in rank order (positions p = 1..n) ---------------------


def _top(ranked: Sequence[float], p: Params) -> Sequence[float]:
    """The top k labels (the whole list when k is None)."""
    return ranked if p.k is None else ranked[: p.k]


def _num_relevant(labels: Sequence[float], p: Params) -> int:
    """Number of relevant labels (label >= min_relevance); over the judged labels this is R."""
    return sum(label >= p.min_relevance for label in labels)


def _dcg(ranked: Sequence[float], p: Params) -> float:
    """DCG@k = sum over p <= k of gain(rel_p) / log2(p + 1)."""
    return sum(GAINS[p.gain](rel) / math.log2(pos + 1) for pos, rel in enumerate(_top(ranked, p), start=1))


def dcg(ranked: Sequence[float], judged: Sequence[float], p: Params) -> float:
    """DCG@k."""
    return _dcg(ranked, p)


def ndcg(ranked: Sequence[float], judged: Sequence[float], p: Params) -> float:
    """DCG@k / IDCG@k, IDCG@k being the DCG@k of the judged labels sorted descending."""
    return _dcg(ranked, p) / _dcg(sorted(judged, reverse=True), p)


def cg(ranked: Sequence[float], judged: Sequence[float], p: Params) -> float:
    """CG@k = sum over p <= k of gain(rel_p)."""
    return sum(GAINS[p.gain](rel) for rel in _top(ranked, p))


def reciprocal_rank(ranked: Sequence[float], judged: Sequence[float], p: Params) -> float:
    """1/p for the first relevant label at p <= k, else 0."""
    return next((1.0 / pos for pos, rel in enumerate(_top(ranked, p), start=1) if rel >= p.min_relevance), 0.0)


def average_precision(ranked: Sequence[float], judged: Sequence[float], p: Params) -> float:
    """Sum over relevant positions p <= k of (relevant in top p) / p, divided by R."""
    top = _top(ranked, p)
    precisions = [_num_relevant(top[:pos], p) / pos for pos, rel in enumerate(top, start=1) if rel >= p.min_relevance]
    return sum(precisions) / _num_relevant(judged, p)


def hits(ranked: Sequence[float], judged: Sequence[float], p: Params) -> float:
    """hits@k = number of relevant labels in the top k (the numerator pooled by the micro averages)."""
    return float(_num_relevant(_top(ranked, p), p))


def hit(ranked: Sequence[float], judged: Sequence[float], p: Params) -> float:
    """1 if any relevant label is in the top k, else 0."""
    return float(hits(ranked, judged, p) > 0)


def precision(ranked: Sequence[float], judged: Sequence[float], p: Params) -> float:
    """hits@k / k (k even when the list is shorter)."""
    return hits(ranked, judged, p) / p.k


def recall(ranked: Sequence[float], judged: Sequence[float], p: Params) -> float:
    """hits@k / R."""
    return hits(ranked, judged, p) / _num_relevant(judged, p)


PER_ORDER = {
    "ndcg": ndcg,
    "dcg": dcg,
    "cg": cg,
    "mrr": reciprocal_rank,
    "map": average_precision,
    "hit_rate": hit,
    "precision": precision,
    "recall": recall,
}
METRICS = (*PER_ORDER, "rank_corr")


def rank_corr(rows: Sequence[Row]) -> float:
    """Mean over unordered pairs of rows of (1 + sign(s_u - s_v) * sign(l_u - l_v)) / 2: 1 concordant, 1/2 if
    score or label tie, 0 discordant. Needs at least two rows."""
    pairs = itertools.combinations(rows, 2)
    return fmean((1 + _sign(u.score - v.score) * _sign(u.label - v.label)) / 2 for u, v in pairs)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


# --- per list and aggregated ------------------------------------------------------------------------------------


def _expected(per_order: Callable[..., float], lst: RankedList, p: Params) -> float:
    """The per-order metric, averaged over the orders the tie policy allows (one order unless "average")."""
    return fmean(per_order([row.label for row in order], lst.judged, p) for order in _orders(lst.rows, p.ties))


def _skipped(lst: RankedList, metric: str, p: Params) -> bool:
    """rank_corr skips lists of fewer than 2 rows; empty lists (R = 0) are skipped under empty="skip"."""
    too_short = metric == "rank_corr" and len(lst.rows) < 2
    return too_short or (p.empty == "skip" and _num_relevant(lst.judged, p) == 0)


def _list_value(lst: RankedList, metric: str, p: Params) -> float | None:
    """The metric for one list: None if skipped, 0 if empty under empty="zero"."""
    if _skipped(lst, metric, p):
        return None
    if _num_relevant(lst.judged, p) == 0:
        return 0.0
    if metric == "rank_corr":
        return rank_corr(lst.rows)
    return _expected(PER_ORDER[metric], lst, p)


def _micro(lists: Sequence[RankedList], metric: str, p: Params) -> float | None:
    """Pooled over the used lists: sum of (expected) hits@k over sum of R (hit_rate, recall) or over
    k * number of used lists (precision); None when the denominator is 0."""
    used = [lst for lst in lists if not _skipped(lst, metric, p)]
    numerator = sum(_expected(hits, lst, p) for lst in used)
    if metric == "precision":
        denominator = p.k * len(used)
    else:
        denominator = sum(_num_relevant(lst.judged, p) for lst in used)
    return numerator / denominator if denominator else None


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def _params(metric, k, gain, ties, min_relevance, empty, average) -> Params:
    """Validate the parameters shared by evaluate_ranking and per_list."""
    _require(metric in METRICS, f"unknown metric {metric!r}")
    _require(k is None or k >= 1, f"k must be >= 1 or None, got {k!r}")
    _require(metric != "precision" or k is not None, "precision needs k")
    _require(gain in GAINS, f"unknown gain {gain!r}")
    _require(ties in TIES, f"unknown ties {ties!r}")
    _require(min_relevance > 0, f"min_relevance must be > 0, got {min_relevance!r}")
    _require(empty in EMPTY, f"unknown empty {empty!r}")
    _require(average == "macro" or (average == "micro" and metric in MICRO_METRICS), f"no {average!r} {metric}")
    return Params(k, gain, ties, min_relevance, empty)


def _lists(rows: pl.DataFrame, judgments: pl.DataFrame | None, ties: str) -> dict[object, RankedList]:
    _require(ties != "item" or judgments is not None or "item" in rows.columns, 'ties="item" needs an item column')
    return _impression_lists(rows) if judgments is None else _run_lists(rows, judgments)


def per_list(
    rows: pl.DataFrame,
    metric: str,
    *,
    k: int | None = None,
    gain: str = "exponential",
    ties: str = "average",
    min_relevance: float = 1.0,
    empty: str = "skip",
    average: str = "macro",
    judgments: pl.DataFrame | None = None,
) -> dict[object, float | None]:
    """{query: the metric for that list, None if skipped}. The per-list value does not depend on `average`,
    which is only validated here so that one set of parameters serves both functions."""
    p = _params(metric, k, gain, ties, min_relevance, empty, average)
    return {query: _list_value(lst, metric, p) for query, lst in _lists(rows, judgments, ties).items()}


def evaluate_ranking(
    rows: pl.DataFrame,
    metric: str,
    *,
    k: int | None = None,
    gain: str = "exponential",
    ties: str = "average",
    min_relevance: float = 1.0,
    empty: str = "skip",
    average: str = "macro",
    judgments: pl.DataFrame | None = None,
) -> tuple[float | None, int, int]:
    """(value, lists used, lists skipped) over the lists of `rows`.

    macro: the mean of the per-list values over the used lists (None if none is used); micro (hit_rate,
    precision, recall only): pooled hits over pooled denominators, see _micro.
    """
    p = _params(metric, k, gain, ties, min_relevance, empty, average)
    lists = _lists(rows, judgments, ties)
    values = [_list_value(lst, metric, p) for lst in lists.values()]
    used = [value for value in values if value is not None]
    if average == "micro":
        value = _micro(list(lists.values()), metric, p)
    else:
        value = fmean(used) if used else None
    return value, len(used), len(values) - len(used)


# --- adapters ---------------------------------------------------------------------------------------------------


def _nested(frame: pl.DataFrame, value: str, cast: Callable) -> dict[object, dict[object, object]]:
    """{query: {item: cast(value)}}, the shape pytrec_eval and ranx take."""
    nested: dict[object, dict[object, object]] = defaultdict(dict)
    for r in frame.iter_rows(named=True):
        nested[r["query"]][r["item"]] = cast(r[value])
    return dict(nested)


def pytrec_eval_reference(
    run_rows: pl.DataFrame, judgments: pl.DataFrame, measure: str, *, relevance_level: int = 1
) -> tuple[dict[str, float], float | None]:
    """({query: value}, value over all queries as trec_eval's "all" line gives it) from pytrec_eval.

    `measure` is one trec_eval measure spelled as pytrec_eval reports it: "ndcg_cut_5", "map", "map_cut_5",
    "recip_rank", "P_5", "recall_5", "success_5", "num_rel", ... Query and item ids must be strings (pytrec_eval
    raises TypeError otherwise) and labels are cast to int (pytrec_eval refuses floats).

    Conventions (checked in test_ranking_reference_selfcheck.py):
    * Score ties are broken by item id DESCENDING in byte order (strcmp), as trec_eval does: "9" > "2" > "10" > "1"
      and "a" > "B". Python's str order is the same for these ids (code point order = UTF-8 byte order): our
      ties="item" with string ids.
    * Only queries both in the run and in the qrels are evaluated: run queries without judgments are absent from
      the result (our "left out entirely"); so are queries whose qrels dict is empty (pytrec_eval's Python wrapper
      drops them). Judged queries absent from the run are ignored too (trec_eval without -c).
    * A query with judgments but no relevant one (R = 0) gets 0 for every measure and counts in the mean:
      our empty="zero".
    * relevance_level is our min_relevance for the binary measures, but ndcg_cut's gain is the raw label whatever
      the level (linear gain): ndcg matches ours only while no list has 0 < label < min_relevance only.
    * P_K divides by K even when fewer than K items are retrieved; recall_K and map(_cut_K) divide by R.
    """
    qrels = _nested(judgments, "label", int)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure}, relevance_level=relevance_level)
    results = evaluator.evaluate(_nested(run_rows, "score", float))
    per_query = {query: values[measure] for query, values in results.items()}
    if not per_query:
        return per_query, None
    return per_query, pytrec_eval.compute_aggregated_measure(measure, list(per_query.values()))


def ranx_reference(
    run_rows: pl.DataFrame, judgments: pl.DataFrame, metric: str
) -> tuple[dict[str, float], float | None]:
    """({query: value}, mean) from ranx, for "ndcg@k", "ndcg_burges@k", "mrr@k", "map@k", "hit_rate@k",
    "precision@k", "recall@k" (no "@k": the whole run, except that ranx's precision then divides by the run length).

    Conventions (read in ranx 0.3.21's ranx/metrics and ranx/data_structures):
    * ranx.evaluate requires the run and the qrels to have the same queries, so both are restricted here to the
      queries they share: run queries without judgments are left out, as in ours.
    * Every metric first drops the judgments below the relevance level (clean_qrels; level 1, or "-lN" in the
      metric name), so 0-relevance judgments are as good as absent. A query with no relevant judgment scores 0.0
      for every metric and counts in the mean: our empty="zero".
    * ndcg is linear gain, ndcg_burges exponential (2**rel - 1); the ideal is the DCG of the (cleaned) judgments
      sorted descending, i.e. of ALL judged items. Because of clean_qrels, gains of labels below the level are 0:
      same as ours only for min_relevance=1 with integer labels.
    * Ties: the run is ordered by np.argsort of the scores (not a stable sort) over hashed item ids, so the order of
      tied items is unspecified: compare only tie-free runs. Labels are cast to int (ranx.Qrels does so too).
    """
    qrels = _nested(judgments, "label", int)
    run = _nested(run_rows, "score", float)
    shared = sorted(qrels.keys() & run.keys())
    if not shared:
        return {}, None
    ranx_run = ranx.Run({query: run[query] for query in shared})
    mean = ranx.evaluate(ranx.Qrels({query: qrels[query] for query in shared}), ranx_run, metric)
    return {query: float(value) for query, value in ranx_run.scores[metric].items()}, float(mean)


def sklearn_ndcg(scores: Sequence[float], labels: Sequence[float], k: int | None = None) -> float:
    """scikit-learn's ndcg_score for one list (>= 2 rows, labels >= 0): linear gain, the ideal from the same list,
    ignore_ties=False averages the gains of tied scores = the mean over the orders of tied rows (ties="average").
    An all-zero list scores 0 (our empty="zero")."""
    return float(skm.ndcg_score([labels], [scores], k=k, ignore_ties=False))


def sklearn_dcg(scores: Sequence[float], labels: Sequence[float], k: int | None = None) -> float:
    """scikit-learn's dcg_score for one list (log base 2, linear gain, ties averaged as in sklearn_ndcg)."""
    return float(skm.dcg_score([labels], [scores], k=k, ignore_ties=False))
