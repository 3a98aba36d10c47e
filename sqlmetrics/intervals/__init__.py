"""Confidence intervals, computed in the same query as the metrics.

``evaluate(..., ci=0.95)`` adds ``<column>_lo`` and ``<column>_hi`` after each metric's
column. A metric's spec declares its analytic interval (``ci_method="analytic"``, or
``"auto"``; docs/intervals.md lists them):

* ``delong`` (``auc``): DeLong's variance of the Mann–Whitney statistic, from the
  placements of the positives and the negatives (ties counting ½), and the Wald
  interval ``auc ± z·se`` clipped to [0, 1] (``sql/intervals/auc_delong.sql``);
* ``query_mean`` (``gauc`` and the ranking metrics, means over independent queries):
  ``se² = n/(n − 1) · Σ g_u² (x_u − m)² / (Σ g_u)²`` over the n queries used, and
  Student's t with n − 1 degrees of freedom (``sql/intervals/query_mean.sql``);
* ``proportion`` (accuracy, precision, recall, specificity): the binomial
  ``p(1 − p)/n`` of the confusion counts, clipped to [0, 1] (``proportion.sql``);
* ``row_mean`` (logloss, brier, score_mean, label_mean): the sample variance of each
  row's value over the summed weight (``row_mean.sql``);
* ``residual_mean`` (mae, mse, mean_error, mape): the same for a value of each row's
  prediction and target, and for rmse = √mse by the delta method (``residual_mean.sql``);
* ``confusion_delta`` (f1, fbeta, balanced_accuracy, mcc): the delta method over the
  confusion cells' multinomial shares, each metric declaring its gradient
  (``confusion_delta.sql``);
* ``kappa_delta`` (cohen_kappa): the delta method over the confusion matrix's cells
  (``kappa_delta.sql``, its gradient cell by cell, and ``multinomial_delta.sql``);
* ``class_confusion_delta`` (the multi-class accuracy, precision, recall, F-scores in
  every average, balanced accuracy and mcc): the delta method over the confusion
  matrix's cells, each metric declaring the class terms of its gradient
  (``class_confusion_delta.sql``, the gradient cell by cell, and ``multinomial_delta.sql``);
* ``histogram_delta`` (calibration): the delta method over the rows' means, each row's
  influence declared by the metric, read from the score histogram
  (``histogram_delta.sql``).
* ``r2_delta`` (r2): the delta method over the rows' squared errors and squared
  deviations of the target (``r2_delta.sql``, over the slice's ``r2_moments.sql``).

Paired forms (``sm.compare(scores=...)``): DeLong's (``paired_delong.sql``), the paired t
over queries (``paired_query_mean.sql``), the rows' differences of a mean over rows
(``paired_row_mean.sql``), the delta method over the joint confusion cells of both
scores (``paired_confusion_delta.sql``) or of two predicted classes
(``paired_multinomial_delta.sql``), over the rows' differences of influence
(``paired_histogram_delta.sql``) and over the rows' influences for the regression
metrics (``paired_residual_mean.sql``, ``paired_r2_delta.sql``).

Clustered forms (``ci_unit=``, ``clustered.py``): each unit's part of the metric's
linearization summed, se² = C/(C − 1)·Σ part², for DeLong's (``clustered_delong.sql``),
the means over rows (``clustered_mean.sql``), the confusion counts' metrics
(``clustered_confusion_delta.sql``), the multi-class metrics and κ (their gradients cell
by cell, ``class_confusion_delta.sql`` and ``kappa_delta.sql``, read by
``clustered_multinomial_delta.sql``; unclustered by ``multinomial_delta.sql``), r2
(``clustered_r2_delta.sql``), calibration (``clustered_histogram_delta.sql``) and the
means over queries whose units are not their queries (``clustered_query_mean.sql``, from
the per-query values; each query within one unit, ``rules.tables.unit_rules``; a unit
that is the query keeps the t over queries). A clustered form's spread has no df: the
normal interval. Paired (``sm.compare(scores=...)``), each unit's parts under the two
scores are subtracted (``clustered_paired.sql``): the difference's part per unit.

Every interval's bounds are clipped to the finite ends of the metric's range.

Each method is a module of this package declaring an ``Interval`` (``sqlmetrics.spec``)
with both of its forms: the SQL template and the polars builder of its spread, and its
paired form (``sm.compare(scores=...)``) where it has one. A metric's spec names the
declaration in ``interval=``; nothing else maps a method to its forms.

In SQL the interval's template becomes a step inside the metric's own (it reads the
metric's steps), giving ``se`` and ``df`` per slice (df NULL for the normal interval),
and the metric's step returns ``<name>_lo`` and ``<name>_hi`` = value ∓ q·se (``bounds``):
q is z, or Student's t (``quantiles``). The polars engine computes the same ``se`` and
``df`` with the same formulas and the bounds with the same quantiles.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from sqlmetrics.intervals.bounds import bounds_polars, bounds_sql, clip_range, margin_sql
from sqlmetrics.intervals.choice import CI_METHODS, check_level, described, interval_of, paired_of, resampled
from sqlmetrics.intervals.clustered import clustered_spread_polars
from sqlmetrics.intervals.quantiles import (
    T_TABLE_DF,
    multiplier_expr,
    normal_quantile,
    quantile,
    t_quantile,
    t_table_sql,
    two_sided_p,
)
from sqlmetrics.spec import MetricCall

__all__ = [
    "CI_METHODS",
    "T_TABLE_DF",
    "bounds_polars",
    "bounds_sql",
    "check_level",
    "clip_range",
    "clustered_spread_polars",
    "described",
    "interval_of",
    "margin_sql",
    "multiplier_expr",
    "normal_quantile",
    "paired_of",
    "paired_row_spread_polars",
    "quantile",
    "resampled",
    "row_spread_polars",
    "t_quantile",
    "t_table_sql",
    "two_sided_p",
]


def row_spread_polars(
    call: MetricCall, rows: pl.LazyFrame, hist: Callable[[], pl.LazyFrame], slices: list[str]
) -> pl.LazyFrame | None:
    """The call's ``se`` and ``df`` per slice from the used ``rows`` or the score
    histogram (``hist()``, as the SQL templates read score_hist), by its interval's
    polars form; None when its own polars step brings them (the query means)."""
    interval = interval_of(call)
    if interval.polars is None:
        return None
    return interval.polars(call, hist() if interval.reads_histogram else rows, slices)


def paired_row_spread_polars(call: MetricCall, rows: pl.LazyFrame, slices: list[str], pair: str) -> pl.LazyFrame | None:
    """The spread of the call's difference under two paired scores from the used rows
    (the slice ``pair`` says which score, 1 or 2), by its paired form; None when its own
    per-query step brings it."""
    paired = paired_of(call)
    return None if paired.polars is None else paired.polars(call, rows, slices, pair)
