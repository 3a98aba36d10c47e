"""recall@k: the share of a list's relevant items found in the top k, averaged over lists."""

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
    "per_list",
    "CASE WHEN used THEN COALESCE(hits / CAST(NULLIF(relevant, 0) AS DOUBLE), 0) END",
    pooled=("CASE WHEN used THEN COALESCE(hits / CAST(NULLIF(relevant, 0) AS DOUBLE), 0) END", "relevant"),
)

SPEC = Metric(
    name="recall@k",
    family="ranking",
    polars_form="lists",
    summary="relevant items in the top k / relevant items per list, averaged over lists",
    template="ranking/recall_at_k.sql",
    intermediates=("cutoff_hits",),
    needs=("label", "score", "query"),
    params=(K_REQUIRED, TIES, MIN_RELEVANCE, EMPTY, AVERAGE),
    outputs=OUTPUTS,
    label_domain="relevance",
    weighted=False,
    reference="pytrec_eval recall_k, ranx recall@k",
    per_query=PER_QUERY,
    interval=query_mean(PER_QUERY),
)


def from_lists(lists: Lists, *, k: int, ties: str, min_relevance: float, empty: str, average: str) -> pl.LazyFrame:
    """The polars form of ``sql/ranking/recall_at_k.sql``."""
    per_list = lists.per_list(hits_in_top(lists, k=k, ties=ties, min_relevance=min_relevance), min_relevance, empty)
    hits, relevant = pl.col("hits"), pl.col("relevant")
    if average == "micro":
        return lists.summarize_pooled(per_list, "recall", hits, relevant)
    return lists.summarize(per_list, "recall", pl.when(relevant > 0).then(hits / relevant).otherwise(0.0))


def frame(data: Frame, **keywords: Any) -> Frame:
    """R@k = (relevant items in the top k) / R per list (query), averaged over lists.

    R counts the list's relevant judged items (label >= ``min_relevance``), retrieved or
    not. ``average="micro"`` is Σ hits / Σ R over lists. Ties, empty lists and
    judgments are as in ``ndcg``. Reached as ``"recall@10"`` in ``sm.evaluate`` (plain
    ``"recall"`` is the classification metric). Columns: ``recall``,
    ``recall_queries``, ``recall_skipped``.

    Keywords: the columns ``score``, ``label``, ``query`` and optionally ``item``, the
    slices ``by``, ``judgments``, and the parameters of ``sm.metric``.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"q": [1, 1, 1, 2, 2], "score": [0.9, 0.8, 0.1, 0.7, 0.2],
    ...                    "rel": [1, 0, 1, 0, 1]})
    >>> # top 1: q1 finds 1 of its 2 relevant items, q2 none of 1: (1/2 + 0) / 2
    >>> smp.recall_at_k(df, score="score", label="rel", query="q", k=1).row(0)
    (0.25, 2, 0)
    """
    return frame_metric(SPEC, from_lists, data, **keywords)
