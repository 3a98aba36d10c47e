"""ndcg: normalized discounted cumulative gain at k, averaged over lists."""

from __future__ import annotations

from typing import Any

import polars as pl

from sqlmetrics.intervals.query_mean import query_mean
from sqlmetrics.metrics.ranking._lists import Lists, frame_metric, gain_expr, group_size, starts, within
from sqlmetrics.metrics.ranking._params import EMPTY, GAIN, MIN_RELEVANCE, OUTPUTS, TIES, K
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric, PerQuery

# each list's value (NULL: left out) and weight in the mean over lists
PER_QUERY = PerQuery("per_list", "ndcg")

SPEC = Metric(
    name="ndcg",
    family="ranking",
    polars_form="lists",
    summary="DCG@k / ideal DCG@k per list, averaged over lists",
    template="ranking/ndcg.sql",
    intermediates=("ranked", "judged", "positions"),
    needs=("label", "score", "query"),
    params=(K, GAIN, TIES, MIN_RELEVANCE, EMPTY),
    outputs=OUTPUTS,
    label_domain="relevance",
    weighted=False,
    reach="gain",
    reference="pytrec_eval ndcg_cut_k (linear gain), ranx ndcg@k / ndcg_burges@k, sklearn.metrics.ndcg_score",
    per_query=PER_QUERY,
    interval=query_mean(PER_QUERY),
)


def dcg_parts(lists: Lists, *, k: int | None, gain_kind: str, ties: str, min_relevance: float) -> pl.LazyFrame:
    """Per list: Σ over rows in the top k of gain(rel)·(D(min(e, k)) − D(a − 1))/g."""
    rows = lists.ranked(ties, min_relevance)
    if k is not None:
        rows = rows.filter(pl.col("first_position") <= k)
    shared = lists.discount_through(within(k), k) - lists.discount_through(pl.col("first_position") - 1, k)
    term = gain_expr(gain_kind) * shared / group_size()
    return rows.with_columns(term=term).group_by(lists.keys).agg(dcg=pl.col("term").sum())


def ideal_dcg(lists: Lists, *, k: int | None, gain_kind: str) -> pl.LazyFrame:
    """Per list: the DCG@k of its judged items in the ideal order (relevance descending)."""
    through = pl.col("n").cum_sum()
    before_list = pl.when(starts(lists.keys)).then(through - pl.col("n")).forward_fill()
    ideal = lists.judged.sort([*lists.keys, "label"], descending=[False] * len(lists.keys) + [True]).with_columns(
        last_position=through - before_list
    )
    first_before = pl.col("last_position") - pl.col("n")
    end = within(k)
    start = first_before if k is None else pl.min_horizontal(first_before, pl.lit(k))
    shared = lists.discount_through(end, k) - lists.discount_through(start, k)
    term = gain_expr(gain_kind) * shared
    return ideal.with_columns(term=term).group_by(lists.keys).agg(idcg=pl.col("term").sum())


def from_lists(lists: Lists, *, k: int | None, gain: str, ties: str, min_relevance: float, empty: str) -> pl.LazyFrame:
    """The polars form of ``sql/ranking/ndcg.sql``."""
    parts = dcg_parts(lists, k=k, gain_kind=gain, ties=ties, min_relevance=min_relevance).join(
        ideal_dcg(lists, k=k, gain_kind=gain), on=lists.keys, how="full", coalesce=True, nulls_equal=True
    )
    per_list = lists.per_list(parts, min_relevance, empty)
    value = pl.when(pl.col("relevant") > 0).then(pl.col("dcg") / pl.col("idcg")).otherwise(0.0)
    return lists.summarize(per_list, "ndcg", value)


def frame(data: Frame, **keywords: Any) -> Frame:
    """NDCG@k = DCG@k / IDCG@k per list (query), averaged over lists.

    DCG@k = Σ_{p <= k} gain(rel_p) / log2(p + 1) with positions p by score, descending;
    IDCG@k is the DCG@k of the list's judged items sorted by relevance (the ideal
    ranking); ``gain`` is ``"exponential"`` (2^rel − 1, LightGBM's and XGBoost's) or
    ``"linear"`` (rel, trec_eval's, scikit-learn's and ranx's ``ndcg``); ``k=None`` is
    the whole list. Relevance must be <= 960 under exponential gain and <= 2^960 under
    linear gain: larger labels are refused (no sum of gains then overflows float64).
    ``ties="average"`` (default) gives the exact mean over every order of tied scores
    (scikit-learn's ``ndcg_score`` does the same); ``"pessimistic"`` /
    ``"optimistic"`` put relevant items last / first within a tie; ``"item"`` breaks ties
    by ``item``, descending (trec_eval). Lists without a relevant item (label >=
    ``min_relevance``) are skipped and counted (``empty="skip"``) or score 0
    (``"zero"``, trec_eval). With ``judgments`` (a frame with the ``query``, ``item`` and
    ``label`` columns), ``data`` is a run: unjudged items have relevance 0 and judged
    items missing from the run still count in the ideal ranking.

    Returns one row per slice of ``by``: ``ndcg``, ``ndcg_queries`` (lists used) and
    ``ndcg_skipped``.

    Keywords: the columns ``score``, ``label``, ``query`` and optionally ``item``, the
    slices ``by``, ``judgments``, and the parameters of ``sm.metric``.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"q": [1, 1, 1, 2, 2], "score": [0.9, 0.8, 0.1, 0.5, 0.4],
    ...                    "rel": [0, 1, 1, 0, 0]})
    >>> # q1: DCG = 1/log2(3) + 1/log2(4) = 1.1309, IDCG = 1 + 1/log2(3) = 1.6309; q2 skipped
    >>> smp.ndcg(df, score="score", label="rel", query="q", k=3).row(0)
    (0.6934264036172708, 1, 1)
    """
    return frame_metric(SPEC, from_lists, data, **keywords)
