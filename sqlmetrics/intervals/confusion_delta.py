"""The delta method's interval of a smooth function of the confusion counts (f1, fbeta,
balanced_accuracy, mcc; ``sql/intervals/confusion_delta.sql``): the cells' shares are
multinomial, and se² = Σ_c q_c·(g_c − ḡ)² / W with g the gradient of the metric in the
shares, declared by the metric as SQL over the shares ``tp``, ``fp``, ``tn``, ``fn``
(read by polars through ``pl.sql_expr``). For a share of the counts it is the binomial
interval (``proportion``)."""

from __future__ import annotations

import polars as pl

from sqlmetrics import templates
from sqlmetrics.spec import Interval, MetricCall

CELLS = ("tp", "fp", "tn", "fn")


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
    )


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
    parameters = {name: templates.literal(value) for name, value in call.kwargs.items()}
    gradient = {key[2:]: pl.sql_expr(templates.fill(sql, parameters)) for key, sql in call.spec.interval.values}
    counts = confusion_counts(rows, slices, call.kwargs["threshold"])
    total = pl.sum_horizontal(*CELLS)
    shares = counts.with_columns(total=total).filter(pl.col("total") > 0)
    shares = shares.with_columns(pl.col(cell) / pl.col("total") for cell in CELLS)
    gradients = shares.with_columns(**{f"g_{cell}": gradient[cell].cast(pl.Float64) for cell in CELLS})
    mean = pl.sum_horizontal(pl.col(cell) * pl.col(f"g_{cell}") for cell in CELLS)
    spread = pl.sum_horizontal(pl.col(cell) * (pl.col(f"g_{cell}") - mean) ** 2 for cell in CELLS)
    return gradients.select(*slices, se=(spread / pl.col("total")).sqrt(), df=pl.lit(None, pl.Int64))
