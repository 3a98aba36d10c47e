"""cg: cumulative gain in the top k, averaged over lists."""

from __future__ import annotations

from typing import Any

import polars as pl

from sqlmetrics.intervals.query_mean import query_mean
from sqlmetrics.metrics.ranking._lists import Lists, frame_metric, gain_expr, group_size, within
from sqlmetrics.metrics.ranking._params import EMPTY, GAIN, MIN_RELEVANCE, OUTPUTS, TIES, K
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric, PerQuery

# each list's value (NULL: left out) and weight in the mean over lists
PER_QUERY = PerQuery("per_list", "cg")

SPEC = Metric(
    name="cg",
    family="ranking",
    polars_form="lists",
    summary="Σ_{p<=k} gain(rel_p) per list, averaged over lists",
    template="ranking/cg.sql",
    intermediates=("ranked",),
    needs=("label", "score", "query"),
    params=(K, GAIN, TIES, MIN_RELEVANCE, EMPTY),
    outputs=OUTPUTS,
    label_domain="relevance",
    weighted=False,
    reach="gain",
    higher_is_better=True,
    range=None,
    reference="brute force over tie orders",
    per_query=PER_QUERY,
    interval=query_mean(PER_QUERY),
)


def from_lists(lists: Lists, *, k: int | None, gain: str, ties: str, min_relevance: float, empty: str) -> pl.LazyFrame:
    """The polars form of ``sql/ranking/cg.sql``."""
    rows = lists.ranked(ties, min_relevance)
    if k is not None:
        rows = rows.filter(pl.col("first_position") <= k)
    share = (within(k) - pl.col("first_position") + 1) / group_size()
    parts = rows.group_by(lists.keys).agg(cg=(gain_expr(gain) * share).sum())
    per_list = lists.per_list(parts, min_relevance, empty)
    return lists.summarize(per_list, "cg", pl.when(pl.col("relevant") > 0).then(pl.col("cg")).otherwise(0.0))


def frame(data: Frame, **keywords: Any) -> Frame:
    """CG@k = Σ_{p <= k} gain(rel_p) per list (query), averaged over lists.

    Positions p by score, descending; ``gain`` is ``"exponential"`` (2^rel − 1) or
    ``"linear"`` (rel); ``k=None`` is the whole list. A tie group straddling k counts
    its mean gain per position inside k (the exact mean over every order of the tie,
    ``ties="average"``). Empty lists, judgments and the result columns are as in
    ``ndcg``: ``cg``, ``cg_queries``, ``cg_skipped``. Relevance must be <= 960
    under exponential gain and <= 2^960 under linear gain (larger labels are refused:
    a sum of gains could overflow float64).

    Keywords: the columns ``score``, ``label``, ``query`` and optionally ``item``, the
    slices ``by``, ``judgments``, and the parameters of ``sm.metric``.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"q": [1, 1, 1], "score": [0.9, 0.5, 0.5], "rel": [1, 3, 0]})
    >>> # top 2: gain 1 at position 1, then one of the tied pair: (7 + 0) / 2
    >>> smp.cg(df, score="score", label="rel", query="q", k=2).row(0)
    (4.5, 1, 0)
    """
    return frame_metric(SPEC, from_lists, data, **keywords)
