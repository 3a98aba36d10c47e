"""hit_rate: the share of lists with a relevant item in the top k."""

from __future__ import annotations

from typing import Any

import polars as pl

from sqlmetrics.intervals.query_mean import query_mean
from sqlmetrics.metrics.ranking._lists import Lists, first_relevant, frame_metric, hits_in_top
from sqlmetrics.metrics.ranking._params import AVERAGE, EMPTY, MIN_RELEVANCE, OUTPUTS, TIES, K
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric, PerQuery

# each list's value (NULL: left out) and weight in the mean over lists
PER_QUERY = PerQuery(
    "per_list",
    "CASE WHEN used THEN hit END",
    pooled=("CASE WHEN used THEN COALESCE(hits / CAST(NULLIF(relevant, 0) AS DOUBLE), 0) END", "relevant"),
)

SPEC = Metric(
    name="hit_rate",
    family="ranking",
    polars_form="lists",
    summary="share of lists with a relevant item in the top k (micro: Σ hits / Σ relevant)",
    template="ranking/hit_rate.sql",
    intermediates=("first_hits", "cutoff_hits"),
    reads_of=lambda average, **_: ("cutoff_hits",) if average == "micro" else ("first_hits",),
    needs=("label", "score", "query"),
    params=(K, TIES, MIN_RELEVANCE, EMPTY, AVERAGE),
    outputs=OUTPUTS,
    label_domain="relevance",
    weighted=False,
    reference="pytrec_eval success_k, ranx hit_rate@k",
    per_query=PER_QUERY,
    interval=query_mean(PER_QUERY),
)


def hit_chance(lists: Lists, *, k: int | None, ties: str, min_relevance: float) -> pl.LazyFrame:
    """Per list with a relevant row, ``hit``: the probability that one is in the top k.
    The first peer group holding one (a.., g rows, m relevant) decides: a hit for sure
    when it ends within k, never when it starts after k; straddling k with s positions
    inside, a miss only if all s go to non-relevant rows: Π_{t < s} (g − m − t)/(g − t)."""
    first = first_relevant(lists, ties=ties, min_relevance=min_relevance)
    if k is None:
        return first.select(*lists.keys, hit=pl.lit(1.0))
    a, g, m = pl.col("a"), pl.col("g"), pl.col("m")
    inside = pl.lit(k) - a + 1
    t = pl.col("t")
    missed = (
        first.filter((a <= k) & (inside < g) & (inside <= g - m))
        .with_columns(t=pl.int_ranges(0, inside))
        .explode("t")
        .group_by(lists.keys)
        .agg(missed=((g - m - t) / (g - t)).product())
    )
    return (
        first.filter(a <= k)
        .join(missed, on=lists.keys, how="left", nulls_equal=True)
        .select(*lists.keys, hit=1.0 - pl.col("missed").fill_null(0.0))
    )


def from_lists(
    lists: Lists, *, k: int | None, ties: str, min_relevance: float, empty: str, average: str
) -> pl.LazyFrame:
    """The polars form of ``sql/ranking/hit_rate.sql``."""
    if average == "micro":
        parts = hits_in_top(lists, k=k, ties=ties, min_relevance=min_relevance)
        per_list = lists.per_list(parts, min_relevance, empty)
        hits, relevant = pl.col("hits"), pl.col("relevant")
        return lists.summarize_pooled(per_list, "hit_rate", hits, relevant)
    per_list = lists.per_list(hit_chance(lists, k=k, ties=ties, min_relevance=min_relevance), min_relevance, empty)
    return lists.summarize(per_list, "hit_rate", pl.col("hit"))


def frame(data: Frame, **keywords: Any) -> Frame:
    """HR@k: the share of lists (queries) with a relevant item in the top k.

    Positions by score, descending; ``k=None`` is the whole list (trec_eval's
    ``success_k``, ranx's ``hit_rate@k``). Under ``ties="average"`` a tie group straddling
    k counts the exact probability that one of its relevant items lands inside k.
    ``average="micro"`` is instead Σ hits@k / Σ R over lists, hits@k the relevant items
    in the top k and R the relevant judged items: the HR@K of recommender papers.
    Empty lists and judgments are as in ``ndcg``. Columns: ``hit_rate``,
    ``hit_rate_queries``, ``hit_rate_skipped``.

    Keywords: the columns ``score``, ``label``, ``query`` and optionally ``item``, the
    slices ``by``, ``judgments``, and the parameters of ``sm.metric``.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"q": [1, 1, 1, 2, 2, 2], "score": [0.9, 0.5, 0.5, 0.9, 0.8, 0.7],
    ...                    "rel": [0, 1, 0, 0, 0, 1]})
    >>> # top 2: q1 has its relevant item in a tie for position 2 (chance 1/2), q2 misses
    >>> smp.hit_rate(df, score="score", label="rel", query="q", k=2).row(0)
    (0.25, 2, 0)
    """
    return frame_metric(SPEC, from_lists, data, **keywords)
