"""Regression: errors of a numeric prediction (the score) against a numeric target (the label).

The steps their templates read (``INTERMEDIATES``, collected by the registry):
``residuals``, the sums below taken once in ``base`` and added up per slice, and the
histogram of absolute errors with its running sums (the median absolute error). The
polars engine builds none of them: each metric is a row expression over the used rows,
all evaluated in one aggregation. Its ``FAMILY``'s hooks refuse a result that overflowed the
float range (``overflow.py``).
"""

import polars as pl

from sqlmetrics.metrics.regression.overflow import check_no_overflow
from sqlmetrics.steps import Family, Folded, Hooks, Intermediate, cumulative

# The residual e = score − label (prediction minus target) of each row, summed in base.
_RESIDUAL = "(score - label)"
RESIDUAL_SUMS = (
    "SUM(w * label) AS w_label",
    f"SUM(w * ABS{_RESIDUAL}) AS abs_error",
    f"SUM(w * {_RESIDUAL} * {_RESIDUAL}) AS squared_error",
    f"SUM(w * {_RESIDUAL}) AS error",
    f"SUM(CASE WHEN label <> 0 THEN w * ABS({_RESIDUAL} / CAST(label AS DOUBLE)) END) AS abs_percentage_error",
    "SUM(CASE WHEN label <> 0 THEN w END) AS w_nonzero_label",
    "COUNT(CASE WHEN label = 0 THEN w END) AS n_zero_label",
    f"MAX(CASE WHEN w > 0 THEN ABS{_RESIDUAL} END) AS max_abs_error",
    "MIN(CASE WHEN w > 0 THEN label END) AS min_label",
    "MAX(CASE WHEN w > 0 THEN label END) AS max_label",
)


def residual_sums_polars() -> list[pl.Expr]:
    """``RESIDUAL_SUMS`` in polars, with SQL's NULL for a sum over no row (a state's base
    part, built by the polars engine)."""
    w, label = pl.col("w"), pl.col("label")
    error = pl.col("score") - label
    nonzero, positive = (label != 0) & w.is_not_null(), w > 0

    def total(value: pl.Expr, rows: pl.Expr | None = None) -> pl.Expr:
        kept = value.filter(rows) if rows is not None else value
        return pl.when(kept.is_not_null().any()).then(kept.sum())

    return [
        total(w * label).alias("w_label"),
        total(w * error.abs()).alias("abs_error"),
        total(w * error * error).alias("squared_error"),
        total(w * error).alias("error"),
        total(w * (error / label).abs(), nonzero).alias("abs_percentage_error"),
        total(w, nonzero).alias("w_nonzero_label"),
        ((label == 0) & w.is_not_null()).sum().cast(pl.Int64).alias("n_zero_label"),
        error.abs().filter(positive).max().alias("max_abs_error"),
        label.filter(positive).min().alias("min_label"),
        label.filter(positive).max().alias("max_label"),
    ]


INTERMEDIATES = {
    "residuals": Intermediate(
        "intermediates/residuals.sql",
        base_aggregates=RESIDUAL_SUMS,
        polars_sums=residual_sums_polars,
        folded=Folded(
            "rows",
            "each regression metric's row expression takes its own sums over the used rows, all of them in one "
            "aggregation that reads the rows once, as SQL's base does",
        ),
    ),
    "error_hist": Intermediate(
        "intermediates/error_hist.sql",
        folded=Folded("rows", "median_absolute_error's row expression sorts the absolute errors itself"),
    ),
    "error_cum": cumulative(
        "error_hist",
        Folded("rows", "median_absolute_error's row expression sums the sorted errors' weights itself"),
    ),
}

FAMILY = Family(
    "regression",
    hooks=Hooks(check_result=check_no_overflow),
    summary="a real target as label and the prediction as score",
)

__all__ = ["FAMILY", "INTERMEDIATES", "RESIDUAL_SUMS"]
