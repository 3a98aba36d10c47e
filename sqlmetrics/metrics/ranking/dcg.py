"""dcg: discounted cumulative gain at k, averaged over lists."""

from __future__ import annotations

from typing import Any

import polars as pl

from sqlmetrics.intervals.query_mean import query_mean
from sqlmetrics.metrics.ranking._lists import Lists, frame_metric
from sqlmetrics.metrics.ranking._params import EMPTY, GAIN, MIN_RELEVANCE, OUTPUTS, TIES, K
from sqlmetrics.metrics.ranking.ndcg import dcg_parts
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric, PerQuery

# each list's value (NULL: left out) and weight in the mean over lists
PER_QUERY = PerQuery("per_list", "dcg")

SPEC = Metric(
    name="dcg",
    family="ranking",
    polars_form="lists",
    summary="Σ_{p<=k} gain(rel_p)/log2(p+1) per list, averaged over lists",
    template="ranking/dcg.sql",
    intermediates=("ranked", "positions"),
    needs=("label", "score", "query"),
    params=(K, GAIN, TIES, MIN_RELEVANCE, EMPTY),
    outputs=OUTPUTS,
    label_domain="relevance",
    weighted=False,
    reach="gain",
    higher_is_better=True,
    range=None,
    reference="sklearn.metrics.dcg_score (linear gain), brute force over tie orders",
    per_query=PER_QUERY,
    interval=query_mean(PER_QUERY),
)


def from_lists(lists: Lists, *, k: int | None, gain: str, ties: str, min_relevance: float, empty: str) -> pl.LazyFrame:
    """The polars form of ``sql/ranking/dcg.sql``."""
    parts = dcg_parts(lists, k=k, gain_kind=gain, ties=ties, min_relevance=min_relevance)
    per_list = lists.per_list(parts, min_relevance, empty)
    return lists.summarize(per_list, "dcg", pl.when(pl.col("relevant") > 0).then(pl.col("dcg")).otherwise(0.0))


def frame(data: Frame, **keywords: Any) -> Frame:
    """DCG@k = Σ_{p <= k} gain(rel_p) / log2(p + 1) per list (query), averaged over lists.

    Positions p by score, descending; ``gain`` is ``"exponential"`` (2^rel − 1) or
    ``"linear"`` (rel); ``k=None`` is the whole list. Ties, empty lists, judgments and
    the result columns are as in ``ndcg``: ``dcg``, ``dcg_queries``, ``dcg_skipped``. Relevance must be <= 960
    under exponential gain and <= 2^960 under linear gain (larger labels are refused:
    a sum of gains could overflow float64).

    Keywords: the columns ``score``, ``label``, ``query`` and optionally ``item``, the
    slices ``by``, ``judgments``, and the parameters of ``sm.metric``.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"q": [1, 1, 1], "score": [0.9, 0.5, 0.5], "rel": [0, 2, 0]})
    >>> # the relevant item shares positions 2 and 3 with a tie: (2^2 - 1)·(1/log2(3) + 1/log2(4))/2
    >>> smp.dcg(df, score="score", label="rel", query="q").row(0)
    (1.696394630357186, 1, 0)
    """
    return frame_metric(SPEC, from_lists, data, **keywords)
