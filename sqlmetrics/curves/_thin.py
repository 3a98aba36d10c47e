"""Thinning a curve to at most ``max_points`` points, with a proven bound on the area error.

**Rule.** Walk a slice's points in order (threshold descending) and measure the L1 path
length of the drawn curve: each step counts |Δx| + |Δy| (a NULL coordinate counts 0),
rounded up to a whole number of units u = 2⁻³², so that the running length is a sum of
integers, exact in any engine and any order of addition. Cut the total length L into
B = ⌊max_points / 2⌋ equal buckets and keep the first and the last point of each bucket.
At most 2·B <= max_points points remain; the curve's first point (length 0) and last
point (length L) are among them. ``sql/curves/thin.sql`` is the same rule in SQL.

**Bound.** Take two consecutive kept points a and b. Either b follows a directly (that
step is exact), or a point between them was dropped; a dropped point is neither first
nor last of its bucket, so a and b lie in one bucket and the path from a to b has length
ℓ <= L/B (rounded lengths only overestimate). Summing over such pairs, Σ ℓ <= L.

* ROC (trapezoid area, x = fpr, y = tpr, both non-decreasing): the exact path from a to
  b stays in the box [x_a, x_b] × [y_a, y_b], so the area under it and the area under the
  chord both lie between y_a·Δx and y_b·Δx: they differ by at most Δx·Δy/2 <= ℓ²/8,
  since Δx + Δy = ℓ. In total |AUC_thinned − AUC| <= Σ ℓ²/8 <= (L/B)·L/8 = L²/(8B),
  which is 1/(2B) for a slice with both classes (L = 2, plus at most u per point).
* PR (step area Σ (R_i − R_{i−1})·P_i, scikit-learn's average precision, x = recall,
  y = precision): the exact curve adds Σ_{i=a+1..b} (R_i − R_{i−1})·P_i where the
  thinned one adds (R_b − R_a)·P_b; the difference is at most (R_b − R_a)·max_i |P_i − P_b|,
  and (R_b − R_a) + max_i |P_i − P_b| <= ℓ (the path from a to b covers both), so it is
  at most ℓ²/4, and also at most (R_b − R_a)·ℓ. In total
  |AP_thinned − AP| <= (L/B)·min(1, L/4), where L = 1 + the total variation of
  precision along the curve.

The tests check both bounds on random curves against the exact areas.
"""

from __future__ import annotations

import polars as pl

UNITS_PER_LENGTH = 2**32  # one unit of rounded path length is 2⁻³²


def thin(points: pl.LazyFrame, slices: list[str], x: str, y: str, *, max_points: int) -> pl.LazyFrame:
    """The points of each slice's curve that the rule keeps (all columns kept)."""
    buckets = max_points // 2
    ordered = points.sort([*slices, "point"], nulls_last=True)
    step = (_absolute_change(x) + _absolute_change(y)).over(slices) * float(UNITS_PER_LENGTH)
    walked = pl.col("step").cum_sum().over(slices)
    length = pl.col("step").sum().over(slices)
    bucket = pl.min_horizontal((walked.cast(pl.Float64) * buckets / length.cast(pl.Float64)).floor(), buckets - 1)
    point, groups = pl.col("point"), [*slices, "bucket"]
    return (
        ordered.with_columns(step=step.ceil().cast(pl.Int64))
        .with_columns(bucket=pl.when(length > 0).then(bucket).otherwise(0.0))
        .filter((point == point.min().over(groups)) | (point == point.max().over(groups)))
        .drop("step", "bucket")
    )


def _absolute_change(column: str) -> pl.Expr:
    """|value − previous value|, 0 at the first point or where either is NULL."""
    return (pl.col(column) - pl.col(column).shift(1)).abs().fill_null(0.0)
