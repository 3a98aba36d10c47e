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
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter
from statistics import fmean

import polars as pl
import pytrec_eval
import ranx
from sklearn import metrics as skm

import sqlmetrics as sm

import metric_tests
from metrics.ranking._common import GAINS
from metrics.ranking._common import num_relevant as _num_relevant

# Within a group of equal scores: (sort key, descending). "average" is not a fixed order: see _orders.
TIE_BREAKS = {
    "pessimistic": (attrgetter("label"), False),
    "optimistic": (attrgetter("label"), True),
    "item": (attrgetter("item"), True),
}
TIES = ("average", *TIE_BREAKS)
EMPTY = ("skip", "zero")

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


# The parameters the shared code reads, for a metric that does not take them (rank_corr's
# ties); every metric's own parameters default as its spec says.
DEFAULTS = {"k": None, "gain": "exponential", "ties": "average", "min_relevance": 1.0, "empty": "skip"}


@dataclass(frozen=True)
class Params:
    """A call's parameters by name (``p.k``, ``p.min_relevance``, ...)."""

    values: tuple[tuple[str, object], ...]

    def __getattr__(self, name: str):
        try:
            return dict(self.values)[name]
        except KeyError:
            raise AttributeError(name) from None


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


# --- the metrics: each one's reference, in tests/metrics/ranking/<metric>.py ----------------------------------


def reference_name(name: str) -> str:
    """The name a registered ranking metric has here: ``precision`` for ``precision@k``."""
    return name.removesuffix("@k")


MODULES = {reference_name(name): module for name, module in metric_tests.modules("ranking").items()}
REGISTERED = {reference_name(name): name for name in metric_tests.modules("ranking")}
PER_ORDER = {name: module.PER_ORDER for name, module in MODULES.items() if hasattr(module, "PER_ORDER")}
PER_LIST = {name: module for name, module in MODULES.items() if hasattr(module, "PER_LIST")}
MICRO_METRICS = tuple(name for name, module in MODULES.items() if hasattr(module, "MICRO_DENOMINATOR"))
METRICS = tuple(MODULES)


# --- per list and aggregated ------------------------------------------------------------------------------------


def _expected(per_order: Callable[..., float], lst: RankedList, p: Params) -> float:
    """The per-order metric, averaged over the orders the tie policy allows (one order unless "average")."""
    return fmean(per_order([row.label for row in order], lst.judged, p) for order in _orders(lst.rows, p.ties))


def _skipped(lst: RankedList, metric: str, p: Params) -> bool:
    """A metric of the rows skips lists shorter than its MIN_ROWS; empty lists (R = 0) are skipped under
    empty="skip"."""
    too_short = metric in PER_LIST and len(lst.rows) < PER_LIST[metric].MIN_ROWS
    return too_short or (p.empty == "skip" and _num_relevant(lst.judged, p) == 0)


def _list_value(lst: RankedList, metric: str, p: Params) -> float | None:
    """The metric for one list: None if skipped, 0 if empty under empty="zero"."""
    if _skipped(lst, metric, p):
        return None
    if _num_relevant(lst.judged, p) == 0:
        return 0.0
    if metric in PER_LIST:
        return PER_LIST[metric].PER_LIST(lst.rows)
    return _expected(PER_ORDER[metric], lst, p)


def _micro(lists: Sequence[RankedList], metric: str, p: Params) -> float | None:
    """Pooled over the used lists: sum of (expected) hits@k over sum of R (hit_rate, recall) or over
    k * number of used lists (precision); None when the denominator is 0."""
    used = [lst for lst in lists if not _skipped(lst, metric, p)]
    module = MODULES[metric]
    numerator = sum(_expected(lambda ranked, judged, p: module.HITS(ranked, p), lst, p) for lst in used)
    denominator = sum(module.MICRO_DENOMINATOR(lst.judged, p) for lst in used)
    return numerator / denominator if denominator else None


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def call_params(metric: str, average: str = "macro", **given) -> Params:
    """Validate the parameters shared by evaluate_ranking and per_list."""
    spec = sm.registry()[REGISTERED[metric]] if metric in REGISTERED else None
    own = {param.name: param.default for param in spec.params if param.name != "average"} if spec else {}
    p = Params(tuple({**DEFAULTS, **own, **given}.items()))
    _require(metric in METRICS, f"unknown metric {metric!r}")
    _require(p.k is None or p.k >= 1, f"k must be >= 1 or None, got {p.k!r}")
    _require(metric != "precision" or p.k is not None, "precision needs k")
    _require(p.gain in GAINS, f"unknown gain {p.gain!r}")
    _require(p.ties in TIES, f"unknown ties {p.ties!r}")
    _require(p.min_relevance > 0, f"min_relevance must be > 0, got {p.min_relevance!r}")
    _require(p.empty in EMPTY, f"unknown empty {p.empty!r}")
    _require(average == "macro" or (average == "micro" and metric in MICRO_METRICS), f"no {average!r} {metric}")
    return p


def _lists(rows: pl.DataFrame, judgments: pl.DataFrame | None, ties: str) -> dict[object, RankedList]:
    _require(ties != "item" or judgments is not None or "item" in rows.columns, 'ties="item" needs an item column')
    return _impression_lists(rows) if judgments is None else _run_lists(rows, judgments)


def per_list(
    rows: pl.DataFrame, metric: str, *, judgments: pl.DataFrame | None = None, **params
) -> dict[object, float | None]:
    """{query: the metric for that list, None if skipped}. ``params``: the metric's (``k``,
    ``ties``, ...; DEFAULTS for those not given); the per-list value does not depend on
    ``average``, which is only validated here so that one set of parameters serves both functions."""
    p = call_params(metric, **params)
    return {query: _list_value(lst, metric, p) for query, lst in _lists(rows, judgments, p.ties).items()}


def evaluate_ranking(
    rows: pl.DataFrame, metric: str, *, average: str = "macro", judgments: pl.DataFrame | None = None, **params
) -> tuple[float | None, int, int]:
    """(value, lists used, lists skipped) over the lists of `rows`.

    macro: the mean of the per-list values over the used lists (None if none is used); micro (the metrics
    with a MICRO_DENOMINATOR): pooled hits over pooled denominators, see _micro.
    """
    p = call_params(metric, average, **params)
    lists = _lists(rows, judgments, p.ties)
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
