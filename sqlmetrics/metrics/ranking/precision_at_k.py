"""precision@k: the share of the top k positions holding a relevant item, averaged over lists."""

from __future__ import annotations

from typing import Any

import polars as pl

from sqlmetrics.intervals.query_mean import query_mean
from sqlmetrics.metrics.ranking._lists import Lists, frame_metric, hits_in_top
from sqlmetrics.metrics.ranking._params import AVERAGE, EMPTY, K_REQUIRED, MIN_RELEVANCE, OUTPUTS, TIES
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric, PerQuery

# each list's value (NULL: left out) and weight in the mean over lists
PER_QUERY = PerQuery(
    "per_list", "hits / CAST({{ k }} AS DOUBLE)", pooled=("hits / CAST({{ k }} AS DOUBLE)", "CAST({{ k }} AS DOUBLE)")
)

SPEC = Metric(
    name="precision@k",
    family="ranking",
    polars_form="lists",
    summary="relevant items in the top k / k per list, averaged over lists",
    template="ranking/precision_at_k.sql",
    intermediates=("cutoff_hits",),
    needs=("label", "score", "query"),
    params=(K_REQUIRED, TIES, MIN_RELEVANCE, EMPTY, AVERAGE),
    outputs=OUTPUTS,
    label_domain="relevance",
    weighted=False,
    best_reached=False,
    reference="pytrec_eval P_k, ranx precision@k",
    per_query=PER_QUERY,
    interval=query_mean(PER_QUERY),
)


def from_lists(lists: Lists, *, k: int, ties: str, min_relevance: float, empty: str, average: str) -> pl.LazyFrame:
    """The polars form of ``sql/ranking/precision_at_k.sql``."""
    per_list = lists.per_list(hits_in_top(lists, k=k, ties=ties, min_relevance=min_relevance), min_relevance, empty)
    hits = pl.col("hits")
    if average == "micro":
        return lists.summarize_pooled(per_list, "precision", hits, pl.repeat(float(k), pl.len()))
    return lists.summarize(per_list, "precision", hits / k)


def frame(data: Frame, **keywords: Any) -> Frame:
    """P@k = (relevant items in the top k) / k per list (query), averaged over lists.

    Positions by score, descending; an item is relevant when its label is >=
    ``min_relevance``. P@k divides by k even for a list shorter than k (trec_eval's
    ``P_k``). ``average="micro"`` pools hits and k over lists, the same number. Ties,
    empty lists and judgments are as in ``ndcg``. Reached as ``"precision@10"`` in
    ``sm.evaluate`` (plain ``"precision"`` is the classification metric). Columns:
    ``precision``, ``precision_queries``, ``precision_skipped``.

    Keywords: the columns ``score``, ``label``, ``query`` and optionally ``item``, the
    slices ``by``, ``judgments``, and the parameters of ``sm.metric``.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"q": [1, 1, 1, 1], "score": [0.9, 0.8, 0.8, 0.1], "rel": [1, 1, 0, 1]})
    >>> # top 2: the first item, then one of a tied pair holding one relevant item: (1 + 1/2) / 2
    >>> smp.precision_at_k(df, score="score", label="rel", query="q", k=2).row(0)
    (0.75, 1, 0)
    """
    return frame_metric(SPEC, from_lists, data, **keywords)
