"""err: expected reciprocal rank at k, averaged over lists."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import polars as pl

from sqlmetrics.intervals.query_mean import query_mean
from sqlmetrics.metrics.ranking._lists import Lists, frame_metric, group_size
from sqlmetrics.metrics.ranking._params import EMPTY, MIN_RELEVANCE, OUTPUTS, TIES, K
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric, Param, PerQuery

MAX_RELEVANCE = Param(
    "max_relevance",
    float,
    4.0,
    "the largest grade M: R = (2^min(rel, M) - 1) / 2^M (gdeval's 4)",
    low=0,
    low_open=True,
    high=960,
)
ERR_TIES = replace(
    TIES,
    default="pessimistic",
    doc="tied scores: pessimistic (relevant items last), optimistic, item (item id descending)",
    choices=("pessimistic", "optimistic", "item"),
    refused=(
        (
            "average",
            "the exact mean of ERR over the orders of tied items is not computed (the cascade's product "
            "is not linear in the positions)",
        ),
    ),
)

# each list's value (NULL: left out) and weight in the mean over lists
PER_QUERY = PerQuery("per_list", "err")

SPEC = Metric(
    name="err",
    family="ranking",
    polars_form="lists",
    summary="Σ_{p<=k} R_p/p · Π_{i<p}(1 − R_i) per list (the cascade model), averaged over lists",
    template="ranking/err.sql",
    intermediates=("ranked",),
    needs=("label", "score", "query"),
    params=(K, MAX_RELEVANCE, ERR_TIES, MIN_RELEVANCE, EMPTY),
    outputs=OUTPUTS,
    label_domain="relevance",
    weighted=False,
    reach="gain",
    best_reached=False,
    reference="ir_measures ERR@k (gdeval), brute force over the cascade",
    per_query=PER_QUERY,
    interval=query_mean(PER_QUERY),
)


def err_parts(lists: Lists, *, k: int | None, max_relevance: float, ties: str, min_relevance: float) -> pl.LazyFrame:
    """Per list: Σ over its peer groups (a..e in the top k, one grade, g rows) of
    S·R·Σ_j (1 − R)^j / (a + j), S the product of 1 − R over the rows above."""
    groups = lists.ranked(ties, min_relevance)
    if k is not None:
        groups = groups.filter(pl.col("first_position") <= k)
    grade = pl.col("label").clip(upper_bound=max_relevance)
    groups = groups.group_by([*lists.keys, "first_position"]).agg(
        pl.col("last_position").min(), g=group_size().first(), grade=grade.min()
    )
    a, e = pl.col("first_position"), pl.col("last_position")
    if k is not None:
        e = pl.min_horizontal(e, pl.lit(k))
    scale = 2.0**max_relevance
    r = (2.0 ** pl.col("grade") - 1) / scale
    ln_miss = (scale - 2.0 ** pl.col("grade") + 1).log() - max_relevance * math.log(2)
    groups = groups.sort([*lists.keys, "first_position"]).with_columns(r=r, ln_miss=ln_miss, e=e)
    ln_survive = (pl.col("g") * pl.col("ln_miss")).cum_sum().shift(1, fill_value=0.0).over(lists.keys)
    stops = groups.with_columns(ln_survive=ln_survive).filter(pl.col("r") > 0)
    j = pl.col("j")
    positions = stops.with_columns(j=pl.int_ranges(0, pl.col("e") - a + 1)).explode("j")
    term = (pl.col("ln_survive") + j * pl.col("ln_miss")).exp() * pl.col("r") / (a + j)
    return positions.group_by(lists.keys).agg(err=term.sum())


def from_lists(
    lists: Lists, *, k: int | None, max_relevance: float, ties: str, min_relevance: float, empty: str
) -> pl.LazyFrame:
    """The polars form of ``sql/ranking/err.sql``."""
    parts = err_parts(lists, k=k, max_relevance=max_relevance, ties=ties, min_relevance=min_relevance)
    value = pl.when(pl.col("relevant") > 0).then(pl.col("err")).otherwise(0.0)
    return lists.summarize(lists.per_list(parts, min_relevance, empty), "err", value)


def frame(data: Frame, **keywords: Any) -> Frame:
    """ERR@k, expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, 2009): per
    list (query), averaged over lists,

        ERR@k = Σ_{p <= k} (1/p) · R_p · Π_{i < p} (1 − R_i),  R = (2^min(rel, M) − 1) / 2^M,

    the chance that a user reading down the list stops, satisfied, at p (the cascade
    model), divided by p. ``max_relevance`` is M, the largest grade (4, as in gdeval,
    the TREC Web track's script that ir_measures runs for ``ERR@k``); a label above it
    counts as M. Positions by score, descending; ``k=None`` is the whole list.

    Ties: ERR takes ``ties="pessimistic"`` (the default: relevant items last within a
    tie), ``"optimistic"`` or ``"item"`` (item id descending, trec_eval's order). Its
    exact mean over the orders of a tie (``"average"``, the other ranking metrics'
    default) is not computed, and asking for it is an error. Empty lists and judgments are as in ``ndcg``.
    Columns: ``err``, ``err_queries``, ``err_skipped``.

    Keywords: the columns ``score``, ``label``, ``query`` and optionally ``item``, the
    slices ``by``, ``judgments``, and the parameters of ``sm.metric``.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"q": [1, 1, 1], "score": [0.9, 0.5, 0.2], "rel": [1, 4, 0]})
    >>> # R = 1/16 at position 1, 15/16 at 2: 1/16 + (15/16)·(15/16)/2
    >>> smp.err(df, score="score", label="rel", query="q", k=10).row(0)
    (0.501953125, 1, 0)
    """
    return frame_metric(SPEC, from_lists, data, **keywords)
