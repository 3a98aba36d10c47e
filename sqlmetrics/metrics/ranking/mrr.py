"""mrr: mean reciprocal rank of the first relevant item, at k."""

from __future__ import annotations

from typing import Any

import polars as pl

from sqlmetrics.intervals.query_mean import query_mean
from sqlmetrics.metrics.ranking._lists import Lists, first_relevant, frame_metric
from sqlmetrics.metrics.ranking._params import EMPTY, MIN_RELEVANCE, OUTPUTS, TIES, K
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric, PerQuery

# each list's value (NULL: left out) and weight in the mean over lists
PER_QUERY = PerQuery("per_list", "rr")

SPEC = Metric(
    name="mrr",
    family="ranking",
    polars_form="lists",
    summary="1 / rank of the first relevant item (0 past k), averaged over lists",
    template="ranking/mrr.sql",
    intermediates=("first_hits",),
    needs=("label", "score", "query"),
    params=(K, TIES, MIN_RELEVANCE, EMPTY),
    outputs=OUTPUTS,
    label_domain="relevance",
    weighted=False,
    reference="pytrec_eval recip_rank, ranx mrr@k",
    per_query=PER_QUERY,
    interval=query_mean(PER_QUERY),
)


def reciprocal_ranks(lists: Lists, *, k: int | None, ties: str, min_relevance: float) -> pl.LazyFrame:
    """Per list with a relevant row in the top k, ``rr`` = E[1/rank of the first one]:
    in its peer group (a.., g rows, m relevant) the first relevant row follows j
    non-relevant ones with P(J = j) = P(J >= j)·m/(g − j),
    P(J >= j) = Π_{t < j} (g − m − t)/(g − t). A group of relevant rows alone (g = m:
    every group of one row, so every list of untied scores) has j = 0 only, rr = 1/a:
    taken directly, as a window over the offsets of every list measured 0.14 s of
    MRR's 0.32 s over 500,000 lists."""
    first = first_relevant(lists, ties=ties, min_relevance=min_relevance)
    if k is not None:
        first = first.filter(pl.col("a") <= k)
    a, g, m, j = pl.col("a"), pl.col("g"), pl.col("m"), pl.col("j")
    alone = first.filter(g == m).select(*lists.keys, rr=1.0 / a.cast(pl.Float64))
    offsets = first.filter(g > m).with_columns(j=pl.int_ranges(0, g - m + 1)).explode("j")
    at_least = ((g - m - j) / (g - j)).cum_prod().shift(1, fill_value=1.0).over(lists.keys)
    offsets = offsets.with_columns(at_least=at_least)
    if k is not None:
        offsets = offsets.filter(a + j <= k)
    mixed = offsets.group_by(lists.keys).agg(rr=(pl.col("at_least") * m / ((g - j).cast(pl.Float64) * (a + j))).sum())
    return pl.concat([alone, mixed])


def from_lists(lists: Lists, *, k: int | None, ties: str, min_relevance: float, empty: str) -> pl.LazyFrame:
    """The polars form of ``sql/ranking/mrr.sql``."""
    per_list = lists.per_list(
        reciprocal_ranks(lists, k=k, ties=ties, min_relevance=min_relevance), min_relevance, empty
    )
    return lists.summarize(per_list, "mrr", pl.col("rr"))


def frame(data: Frame, **keywords: Any) -> Frame:
    """MRR@k: the mean over lists (queries) of 1/p, p the position of the first relevant
    item (label >= ``min_relevance``), or 0 when it is not in the top k (``k=None``: no
    cutoff; trec_eval's ``recip_rank``, ranx's ``mrr@k``).

    Positions by score, descending. Under ``ties="average"`` a tie group holding the
    first relevant item gives the exact expectation of 1/p over every order of the tie.
    Empty lists and judgments are as in ``ndcg``. Columns: ``mrr``, ``mrr_queries``,
    ``mrr_skipped``.

    Keywords: the columns ``score``, ``label``, ``query`` and optionally ``item``, the
    slices ``by``, ``judgments``, and the parameters of ``sm.metric``.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"q": [1, 1, 1, 2, 2], "score": [0.9, 0.5, 0.5, 0.9, 0.1],
    ...                    "rel": [0, 1, 0, 1, 0]})
    >>> # q1: the relevant item is at 2 or 3, E[1/p] = (1/2 + 1/3)/2; q2: 1
    >>> smp.mrr(df, score="score", label="rel", query="q").row(0)
    (0.7083333333333333, 2, 0)
    """
    return frame_metric(SPEC, from_lists, data, **keywords)
