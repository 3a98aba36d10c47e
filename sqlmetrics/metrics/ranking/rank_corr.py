"""rank_corr: how well each list's score order agrees with its label order, averaged over lists."""

from __future__ import annotations

from typing import Any

import polars as pl

from sqlmetrics.intervals.query_mean import query_mean
from sqlmetrics.metrics.ranking._lists import Lists, frame_metric
from sqlmetrics.metrics.ranking._params import EMPTY, MIN_RELEVANCE, OUTPUTS
from sqlmetrics.sources import Frame
from sqlmetrics.spec import Metric, PerQuery

# each list's value (NULL: left out) and weight in the mean over lists
PER_QUERY = PerQuery("per_list", "rc")

SPEC = Metric(
    name="rank_corr",
    family="ranking",
    polars_form="lists",
    summary="share of pairs ordered by score as by label (ties ½) per list, averaged over lists",
    template="ranking/rank_corr.sql",
    intermediates=(),
    needs=("label", "score", "query"),
    params=(MIN_RELEVANCE, EMPTY),
    outputs=OUTPUTS,
    label_domain="relevance",
    weighted=False,
    best_reached=False,
    reference="(1 + scipy.stats.kendalltau(variant='b' on tie-free data))/2, brute force over pairs",
    per_query=PER_QUERY,
    interval=query_mean(PER_QUERY),
)


def concordance(lists: Lists) -> pl.LazyFrame:
    """Per list: ``n`` rows and ``won``, the pairs ordered by score as by label, a pair
    tied in score or label counting ½. Pairs across two label levels are counted like an
    AUC on the rows of both levels sorted by score; pairs within a level add ½ each."""
    keys = lists.keys
    # counts as Int64 and products in Float64: polars counts are UInt32 and n·(n − 1) wraps past 2^32
    cells = lists.rows.group_by([*keys, "label", "score"]).agg(n=pl.len().cast(pl.Int64))
    levels = cells.group_by([*keys, "label"]).agg(pl.col("n").sum())
    pairs = (
        cells.join(levels, on=keys, how="inner", nulls_equal=True, suffix="_other")
        .filter(pl.col("label") != pl.col("label_other"))
        .select(
            *keys,
            "score",
            hi=pl.max_horizontal("label", "label_other"),
            lo=pl.min_horizontal("label", "label_other"),
            n_hi=pl.when(pl.col("label") > pl.col("label_other")).then(pl.col("n")).otherwise(0),
            n_lo=pl.when(pl.col("label") < pl.col("label_other")).then(pl.col("n")).otherwise(0),
        )
        .group_by([*keys, "hi", "lo", "score"])
        .agg(pl.col("n_hi").sum(), pl.col("n_lo").sum())
        .sort([*keys, "hi", "lo", "score"], nulls_last=True)
    )
    level_pair = [*keys, "hi", "lo"]
    n_hi, n_lo = pl.col("n_hi").cast(pl.Float64), pl.col("n_lo").cast(pl.Float64)
    won = pairs.group_by(level_pair).agg(
        won=(n_hi.sum() * n_lo.sum() + (n_hi * n_lo.cum_sum()).sum() - (n_lo * n_hi.cum_sum()).sum()) / 2
    )
    within_levels = levels.group_by(keys).agg(
        n=pl.col("n").sum(), same=(pl.col("n").cast(pl.Float64) * (pl.col("n") - 1)).sum() / 4
    )
    across = won.group_by(keys).agg(pl.col("won").sum())
    return within_levels.join(across, on=keys, how="left", nulls_equal=True).select(
        *keys, "n", won=pl.col("same") + pl.col("won").fill_null(0.0)
    )


def from_lists(lists: Lists, *, min_relevance: float, empty: str) -> pl.LazyFrame:
    """The polars form of ``sql/ranking/rank_corr.sql``."""
    per_list = lists.per_list(concordance(lists), min_relevance, empty).with_columns(
        used=pl.col("used") & (pl.col("n") >= 2)
    )
    n = pl.col("n")
    value = pl.when(pl.col("relevant") > 0).then(2 * pl.col("won") / (n.cast(pl.Float64) * (n - 1))).otherwise(0.0)
    return lists.summarize(per_list, "rank_corr", value)


def frame(data: Frame, **keywords: Any) -> Frame:
    """RC = Σ_{pairs u<v} (1 + sgn((s_u − s_v)·(l_u − l_v)))/2 / (n(n − 1)/2) per list
    (query), averaged over lists.

    A pair ordered by score as by label earns 1, a pair tied in score or in label ½, a
    reversed pair 0: RC = (1 + Kendall's τ_a)/2. There is no ``ties`` parameter: the ½
    of a tied pair is already the mean over both of its orders. Lists with fewer than 2
    rows are skipped; empty lists and judgments are as in ``ndcg`` (only the run's rows
    form pairs). Columns: ``rank_corr``, ``rank_corr_queries``, ``rank_corr_skipped``.

    Keywords: the columns ``score``, ``label``, ``query`` and optionally ``item``, the
    slices ``by``, ``judgments``, and the parameters of ``sm.metric``.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"q": [1, 1, 1], "score": [0.9, 0.5, 0.5], "rel": [2, 1, 0]})
    >>> # pairs: (2,1) and (2,0) ordered, (1,0) tied in score: (1 + 1 + 1/2) / 3
    >>> smp.rank_corr(df, score="score", label="rel", query="q").row(0)
    (0.8333333333333334, 1, 0)
    """
    return frame_metric(SPEC, from_lists, data, **keywords)
