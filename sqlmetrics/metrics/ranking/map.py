"""map: mean average precision at k, over lists."""

from __future__ import annotations

from typing import Any

import polars as pl

from sqlmetrics.intervals.query_mean import query_mean
from sqlmetrics.metrics.ranking._lists import Lists, frame_metric, group_size, within
from sqlmetrics.metrics.ranking._params import EMPTY, MIN_RELEVANCE, OUTPUTS, TIES, K
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric, PerQuery

# each list's value (NULL: left out) and weight in the mean over lists
PER_QUERY = PerQuery("per_list", "ap")

SPEC = Metric(
    name="map",
    family="ranking",
    polars_form="lists",
    summary="Σ_{relevant p <= k} P@p / R per list, averaged over lists",
    template="ranking/map.sql",
    intermediates=("ranked", "positions"),
    needs=("label", "score", "query"),
    params=(K, TIES, MIN_RELEVANCE, EMPTY),
    outputs=OUTPUTS,
    label_domain="relevance",
    weighted=False,
    reach="relevant",
    reference="pytrec_eval map / map_cut_k, ranx map@k",
    per_query=PER_QUERY,
    interval=query_mean(PER_QUERY),
)


def precision_sums(lists: Lists, *, k: int | None, ties: str, min_relevance: float) -> pl.LazyFrame:
    """Per list, Σ over its relevant rows within k of the expected P@p at their position:
    ((r + 1)·S + (m − 1)/(g − 1)·(c − a·S))/g for a row of a peer group at a..e with g
    rows, m relevant and r relevant above, S = H(min(e, k)) − H(a − 1), c = min(e, k) − a + 1."""
    rows = lists.ranked(ties, min_relevance).filter(pl.col("relevant") == 1)
    if k is not None:
        rows = rows.filter(pl.col("first_position") <= k)
    a, g, m = pl.col("first_position"), group_size(), pl.col("group_relevant")
    # r: the relevant rows of earlier groups, ranked among the list's relevant rows (map.sql)
    r = a.rank("min").over(lists.keys) - 1
    end = within(k)
    s = lists.harmonic_through(end, k) - lists.harmonic_through(a - 1, k)
    spread = pl.when(g > 1).then((m - 1) / (g - 1) * (end - a + 1 - a * s)).otherwise(0.0)
    term = ((r + 1) * s + spread) / g
    # terms before grouping: gather() inside a group_by aggregation fails on empty input
    return rows.with_columns(term=term).group_by(lists.keys).agg(precision_sum=pl.col("term").sum())


def from_lists(lists: Lists, *, k: int | None, ties: str, min_relevance: float, empty: str) -> pl.LazyFrame:
    """The polars form of ``sql/ranking/map.sql``."""
    parts = precision_sums(lists, k=k, ties=ties, min_relevance=min_relevance)
    per_list = lists.per_list(parts, min_relevance, empty)
    relevant = pl.col("relevant")
    return lists.summarize(
        per_list, "map", pl.when(relevant > 0).then(pl.col("precision_sum") / relevant).otherwise(0.0)
    )


def frame(data: Frame, **keywords: Any) -> Frame:
    """MAP@k: the mean over lists (queries) of AP@k = Σ_{p <= k, item p relevant} P@p / R.

    Positions by score, descending; R is the number of relevant judged items (label >=
    ``min_relevance``), retrieved or not, as trec_eval's ``map`` and ``map_cut_k``
    (Kaggle's apk divides by min(R, k) instead). ``k=None`` is the whole list. Under
    ``ties="average"``, the exact mean over every order of tied items. Empty lists and
    judgments are as in ``ndcg``. Columns: ``map``, ``map_queries``, ``map_skipped``.

    Keywords: the columns ``score``, ``label``, ``query`` and optionally ``item``, the
    slices ``by``, ``judgments``, and the parameters of ``sm.metric``.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"q": [1, 1, 1, 1], "score": [0.9, 0.8, 0.7, 0.6], "rel": [1, 0, 1, 0]})
    >>> # relevant at 1 and 3: (1/1 + 2/3) / 2
    >>> smp.map(df, score="score", label="rel", query="q").row(0)
    (0.8333333333333333, 1, 0)
    """
    return frame_metric(SPEC, from_lists, data, **keywords)
