"""The delta method's interval of a smooth function of the confusion counts (f1, fbeta,
balanced_accuracy, mcc; ``sql/intervals/confusion_delta.sql``): the cells' shares are
multinomial, and se² = Σ_c q_c·(g_c − ḡ)² / W with g the gradient of the metric in the
shares, declared by the metric as SQL over the shares ``tp``, ``fp``, ``tn``, ``fn``
(read by polars through ``pl.sql_expr``). For a share of the counts it is the binomial
interval (``proportion``). Two scores of the same rows are compared over the joint cells
(label, both predictions: ``sql/intervals/paired_confusion_delta.sql``), for these
metrics and the shares alike."""

from __future__ import annotations

import polars as pl

from sqlmetrics.spec import ClusteredInterval, Interval, MetricCall, PairedInterval
from sqlmetrics.sqltext import templates

CELLS = ("tp", "fp", "tn", "fn")
PAIRED_METHOD = "paired, normal: delta method"


def confusion_delta(g_tp: str, g_fp: str, g_tn: str, g_fn: str) -> Interval:
    """The delta method's interval of a metric of the confusion counts whose gradient in
    the cells' shares is ``g_*`` (SQL over ``tp``, ``fp``, ``tn``, ``fn``, the shares,
    and the metric's parameters as ``{{ name }}``)."""
    return Interval(
        "confusion_delta",
        "intervals/confusion_delta.sql",
        "delta method",
        comparison="delta method",
        values=(("g_tp", g_tp), ("g_fp", g_fp), ("g_tn", g_tn), ("g_fn", g_fn)),
        polars=confusion_delta_polars,
        paired=PairedInterval(
            "intervals/paired_confusion_delta.sql", PAIRED_METHOD, over_rows=True, polars=paired_confusion_delta_polars
        ),
        clustered=CLUSTERED,
    )


def _gradients(call: MetricCall) -> dict[str, pl.Expr]:
    """The call's gradient in the cells' shares, ``{cell: expression over the shares}``."""
    parameters = {name: templates.literal(value) for name, value in call.kwargs.items()}
    values = dict(call.spec.interval.values)
    return {cell: pl.sql_expr(templates.fill(values[f"g_{cell}"], parameters)).cast(pl.Float64) for cell in CELLS}


def clustered_confusion_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """clustered_confusion_delta.sql over the used rows (with ``unit_id``): each unit's
    part Σ_c n_kc·(g_c − ḡ) / W, n_kc its weight in cell c at the call's threshold."""
    gradient = _gradients(call)
    units = confusion_counts(rows.filter(pl.col("w").is_not_null()), [*slices, "unit_id"], call.kwargs["threshold"])
    units = units.rename({cell: f"unit_{cell}" for cell in CELLS})
    total = pl.col("total")
    totalled = units.with_columns(total=pl.sum_horizontal(f"unit_{cell}" for cell in CELLS).sum().over(slices))
    slice_shares = (pl.col(f"unit_{cell}").sum().over(slices).alias(cell) / total for cell in CELLS)
    shares = totalled.filter(total > 0).with_columns(slice_shares)
    gradients = shares.with_columns(**{f"g_{cell}": gradient[cell] for cell in CELLS})
    mean = pl.sum_horizontal(pl.col(cell) * pl.col(f"g_{cell}") for cell in CELLS)
    part = pl.sum_horizontal(pl.col(f"unit_{cell}") * (pl.col(f"g_{cell}") - mean) for cell in CELLS) / total
    # sum_horizontal skips NULLs: an undefined gradient must leave the part NULL
    defined = pl.all_horizontal(pl.col(f"g_{cell}").is_not_null() for cell in CELLS)
    return gradients.select(*slices, "unit_id", part=pl.when(defined).then(part))


CLUSTERED = ClusteredInterval("intervals/clustered_confusion_delta.sql", clustered_confusion_polars)


def confusion_counts(rows: pl.LazyFrame, slices: list[str], threshold: float) -> pl.LazyFrame:
    """Per slice the weighted confusion counts of the used rows (score >= threshold
    predicts positive)."""
    w, positive, predicted = pl.col("w"), pl.col("label") == 1, pl.col("score") >= threshold
    return rows.group_by(slices).agg(
        tp=w.filter(positive & predicted).sum(),
        fp=w.filter(~positive & predicted).sum(),
        tn=w.filter(~positive & ~predicted).sum(),
        fn=w.filter(positive & ~predicted).sum(),
    )


def confusion_delta_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str]) -> pl.LazyFrame:
    """confusion_delta.sql over the used rows, at the call's threshold."""
    gradient = _gradients(call)
    counts = confusion_counts(rows, slices, call.kwargs["threshold"])
    total = pl.sum_horizontal(*CELLS)
    shares = counts.with_columns(total=total).filter(pl.col("total") > 0)
    shares = shares.with_columns(pl.col(cell) / pl.col("total") for cell in CELLS)
    gradients = shares.with_columns(**{f"g_{cell}": gradient[cell] for cell in CELLS})
    mean = pl.sum_horizontal(pl.col(cell) * pl.col(f"g_{cell}") for cell in CELLS)
    spread = pl.sum_horizontal(pl.col(cell) * (pl.col(f"g_{cell}") - mean) ** 2 for cell in CELLS)
    return gradients.select(*slices, se=(spread / pl.col("total")).sqrt(), df=pl.lit(None, pl.Int64))


def paired_confusion_delta_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame:
    """paired_confusion_delta.sql over the used rows of two paired scores (the slice
    ``pair`` says which, 1 or 2; each row of 1 carries both, ``score_1`` and ``score_2``):
    per slice ``se`` of the difference of the metric under the two scores, on the rows
    of 2."""
    gradient, threshold = _gradients(call), call.kwargs["threshold"]
    groups = [column for column in slices if column != pair] or ["sqlmetrics_all"]
    used = rows.filter(pl.col(pair) == 1).with_columns(sqlmetrics_all=pl.lit(0))
    predicted = [(pl.col(f"score_{k}") >= threshold).alias(f"predicted_{k}") for k in (1, 2)]
    joint = used.group_by(*groups, pl.col("label") == 1, *predicted).agg(n=pl.col("w").sum())
    cells = joint.with_columns(total=pl.col("n").sum().over(groups)).filter(pl.col("total") > 0)
    cells = cells.with_columns(q=pl.col("n") / pl.col("total"))
    differences = pl.lit(0.0)
    for k, sign in ((1, -1), (2, 1)):
        positive, predicted_k = pl.col("label"), pl.col(f"predicted_{k}")
        where = {"tp": positive & predicted_k, "fp": ~positive & predicted_k, "tn": ~positive & ~predicted_k,
                 "fn": positive & ~predicted_k}  # fmt: skip
        shares = {cell: pl.when(held).then("q").otherwise(0.0).sum().over(groups) for cell, held in where.items()}
        cells = cells.with_columns(**shares).with_columns(**{f"g{k}_{cell}": gradient[cell] for cell in CELLS})
        at_cell = pl.when(where["tp"]).then(pl.col(f"g{k}_tp")).when(where["fp"]).then(pl.col(f"g{k}_fp"))
        at_cell = at_cell.when(where["tn"]).then(pl.col(f"g{k}_tn")).otherwise(pl.col(f"g{k}_fn"))
        differences = differences + sign * at_cell
    centred = cells.with_columns(h=differences).with_columns(h_mean=(pl.col("q") * pl.col("h")).sum().over(groups))
    spread = (pl.col("q") * (pl.col("h") - pl.col("h_mean")) ** 2).sum() / pl.col("total").first()
    se = pl.when(pl.col("h").null_count() == 0).then(spread.sqrt())
    out = centred.group_by(groups).agg(se=se, df=pl.lit(None, pl.Int64))
    out = out.drop("sqlmetrics_all") if groups == ["sqlmetrics_all"] else out
    return out.with_columns(pl.lit(2, pl.Int32).alias(pair)).select(*slices, "se", "df")
