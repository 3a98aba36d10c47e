"""DeLong's interval of the AUC (``sql/intervals/auc_delong.sql``): the variance of the
Mann–Whitney statistic from the placements of the positives and the negatives (ties
counting ½), the Wald interval ``auc ± z·se`` (clipped to [0, 1]); and of the difference
of two paired AUCs over the same rows (``sql/intervals/paired_delong.sql``: the
placements' differences under the two scores); clustered by a unit, the units' sums of
the placements less the AUC (``sql/intervals/clustered_delong.sql``, Obuchowski 1997).
Each weight is divided by its class's total before any product of weights, so no weight
overflows or underflows."""

from __future__ import annotations

import polars as pl

from sqlmetrics.spec import ClusteredInterval, Interval, MetricCall, PairedInterval


def delong_polars(call: MetricCall, hist: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """auc_delong.sql over the score histogram (``score``, ``w_pos``, ``w_neg`` per
    slice): per slice ``se`` (DeLong) and ``df`` (NULL)."""
    hist = hist.sort([*slices, "score"], descending=[*([False] * len(slices)), True], nulls_last=True)
    w_pos, w_neg = pl.col("w_pos"), pl.col("w_neg")
    cumulative = hist.with_columns(tp=w_pos.cum_sum().over(slices), fp=w_neg.cum_sum().over(slices))
    pos, neg = w_pos.sum(), w_neg.sum()
    # each weight over its class's total before any product: no overflow or underflow
    wins_minus_losses = (w_neg / neg * (pl.col("tp") / pos)).sum() - (w_pos / pos * (pl.col("fp") / neg)).sum()
    totals = cumulative.group_by(slices).agg(pos=pos, neg=neg, auc=(1 + wins_minus_losses) / 2)
    joined = cumulative.join(totals.filter((pl.col("pos") > 1) & (pl.col("neg") > 1)), on=slices, nulls_equal=True)
    t_pos, t_neg, auc = pl.col("pos").first(), pl.col("neg").first(), pl.col("auc")
    pos_placement = (pl.col("neg") - pl.col("fp") + w_neg / 2) / pl.col("neg")
    neg_placement = (pl.col("tp") - w_pos / 2) / pl.col("pos")
    variance = (w_pos / t_pos * (pos_placement - auc) ** 2).sum() / (t_pos - 1) + (
        w_neg / t_neg * (neg_placement - auc) ** 2
    ).sum() / (t_neg - 1)
    return joined.group_by(slices).agg(se=variance.sqrt(), df=pl.lit(None, pl.Int64))


def unit_histogram(rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """Each unit's histogram of scores: per slice, ``unit_id`` and score, the used rows'
    positive and negative weight."""
    w, positive = pl.col("w"), pl.col("label") == 1
    used = rows.filter(w.is_not_null())
    weights = {"w_pos": w.filter(positive).sum(), "w_neg": w.filter(~positive).sum()}
    return used.group_by(*slices, "unit_id", "score").agg(**weights)


def clustered_delong_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """clustered_delong.sql over the used rows (with ``unit_id``): each unit's part of
    the AUC, Σ_pos w·(V⁺ − AUC)/W⁺ + Σ_neg w·(V⁻ − AUC)/W⁻ over its rows."""
    units = unit_histogram(rows, slices)
    w_pos, w_neg = pl.col("w_pos"), pl.col("w_neg")
    scores = units.group_by(*slices, "score").agg(w_pos.sum(), w_neg.sum())
    scores = scores.sort([*slices, "score"], descending=[*([False] * len(slices)), True], nulls_last=True)
    pos, neg = pl.col("pos_total"), pl.col("neg_total")
    placed = scores.with_columns(
        tp=w_pos.cum_sum().over(slices),
        fp=w_neg.cum_sum().over(slices),
        pos_total=w_pos.sum().over(slices),
        neg_total=w_neg.sum().over(slices),
    ).with_columns(  # fmt: skip
        pos_placement=pl.when(neg > 0).then(1 - (pl.col("fp") - w_neg / 2) / neg),
        neg_placement=pl.when(pos > 0).then((pl.col("tp") - w_pos / 2) / pos),
    )
    placed = placed.with_columns(auc=pl.when(pos > 0).then((w_pos * pl.col("pos_placement")).sum().over(slices) / pos))
    placements = placed.select(*slices, "score", "pos_total", "neg_total", "pos_placement", "neg_placement", "auc")
    joined = units.join(placements, on=[*slices, "score"], nulls_equal=True)
    auc = pl.col("auc")
    part_pos = pl.when(pos > 0).then(w_pos * (pl.col("pos_placement") - auc) / pos)
    part_neg = pl.when(neg > 0).then(w_neg * (pl.col("neg_placement") - auc) / neg)
    return joined.select(*slices, "unit_id", part=part_pos + part_neg)


def paired_delong_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame:
    """paired_delong.sql over the used rows of two paired scores (the slice ``pair`` says
    which, 1 or 2; each row of 1 carries both, ``score_1`` and ``score_2``): per slice
    ``se`` of the difference of the two AUCs, on the rows of 2."""
    groups = [column for column in slices if column != pair]
    w, positive = pl.col("w"), pl.col("label") == 1
    used = rows.filter(pl.col(pair) == 1).with_columns(
        w_pos=pl.when(positive).then(w).otherwise(0.0), w_neg=pl.when(positive).then(0.0).otherwise(w)
    )
    for k in (1, 2):
        used = used.join(_placements(used, groups, f"score_{k}", str(k)), on=[*groups, f"score_{k}"], nulls_equal=True)
    w_pos, w_neg = pl.col("w_pos"), pl.col("w_neg")
    pos, neg = w_pos.sum(), w_neg.sum()
    # placements as fractions and weights as shares of their class, each division before a
    # product of weights, and the squares about each class's mean (paired_delong.sql)
    b, a = (pl.col("b_2") - pl.col("b_1")) / neg, (pl.col("a_2") - pl.col("a_1")) / pos
    pos_share, neg_share = w_pos / pos, w_neg / neg
    spread_pos = (pos_share * (b - (pos_share * b).sum()) ** 2).sum() / (pos - 1)
    spread_neg = (neg_share * (a - (neg_share * a).sum()) ** 2).sum() / (neg - 1)
    se = pl.when((pos > 1) & (neg > 1)).then((spread_pos + spread_neg).sqrt())
    sums = used.group_by(groups).agg(se=se) if groups else used.select(se=se)
    return sums.filter(pl.col("se").is_not_null()).select(
        *groups, pl.lit(2, pl.Int32).alias(pair), "se", df=pl.lit(None, pl.Int64)
    )


def _placements(rows: pl.LazyFrame, groups: list[str], score: str, suffix: str) -> pl.LazyFrame:
    """Per slice and value of ``score``: ``b_<suffix>``, the negative weight below it plus
    half at it, and ``a_<suffix>``, the positive weight above it plus half at it."""
    hist = rows.group_by([*groups, score]).agg(pl.col("w_pos").sum(), pl.col("w_neg").sum()).sort(score)
    at_or_below = pl.col("w_neg").cum_sum()
    at_or_above = pl.col("w_pos").cum_sum(reverse=True)
    if groups:
        at_or_below, at_or_above = at_or_below.over(groups), at_or_above.over(groups)
    return hist.select(
        *groups,
        score,
        (at_or_below - pl.col("w_neg") / 2).alias(f"b_{suffix}"),
        (at_or_above - pl.col("w_pos") / 2).alias(f"a_{suffix}"),
    )


DELONG = Interval(
    "delong",
    "intervals/auc_delong.sql",
    "DeLong",
    comparison="DeLong",
    polars=delong_polars,
    reads_histogram=True,
    paired=PairedInterval(
        "intervals/paired_delong.sql", "paired, normal: DeLong", over_rows=True, polars=paired_delong_polars
    ),
    clustered=ClusteredInterval("intervals/clustered_delong.sql", clustered_delong_polars),
)
