"""The bound a roll-up of rounded states (``sm.state(..., score_digits=d)``) reports next
to each metric that rounding can change: ``<column>_max_error``, a certified bound on
|metric of the rows − metric of the rounded state|, from the state alone.

Why it holds. A rounded state keeps, per slice, rounded score q and label y, the weight
of the rows and the smallest and largest score they had (``score_min``, ``score_max``):
each row's score s lies in [score_min, score_max] of its (q, y). A metric declared
``monotone`` (``Metric.score_rounding``) only rises, or only falls, as any one row's
score rises, the direction fixed by the row's label (auc rises with a positive's score
and falls with a negative's; logloss and brier, over probabilities, fall with a
positive's and rise with a negative's; score_mean and calibration rise with both; a
threshold metric's tp, fp, tn, fn only move one way as a row crosses the threshold, and
precision, recall, f1, fbeta, accuracy, specificity, balanced accuracy and mcc are
monotone in them). For mcc = (a·d − b·c) / √(K·L·P·N), with a, b, c, d = tp, fp, fn, tn,
K = a + b and L = c + d: a positive crossing the threshold moves weight ε from c to a;
the numerator gains ε·N and K·L becomes (K + ε)(L − ε), so ∂mcc/∂ε has the sign of
2·N·K·L − (a·d − b·c)·(L − K). As a·d − b·c = a·L − c·K ≤ K·d (a ≤ K) and
c·K − a·L ≤ L·b (c ≤ L), the product is at most K·L·d when L ≥ K and K·L·b when L < K,
both within 2·N·K·L (N = b + d): mcc rises with tp, and by the symmetry of the classes
(which negates it) falls with fp.

So over every placement of the scores within their spreads the metric is smallest and
largest at a corner: every positive at its score_min or every one at its score_max, and
likewise every negative, four corners in all; the rows' own scores are one placement, so
their metric M lies between the corners' least and greatest values, and

    |M − M_rounded| ≤ max over the four corners c of |M_c − M_rounded|.

That is the bound of the ``monotone`` metrics (``max_error_steps``): each corner is the
metric's own template, over base with every score moved to its corner (``corner_base``)
and the steps it reads after it, per slice and corner. It is 0 in a slice whose rounding moved no score (every
score_min = score_max = q); infinite where a corner's metric is undefined (NULL) and the
rounded one is not, or the other way round: the rows' metric may then be undefined (the
conditions that make a metric NULL, a count at 0, are reached at a corner too).

For auc it is within the first-order argument: rounding is monotone, so pairs of a
positive and a negative in different bins keep their order, and a pair within a bin
counts ½ in the rounded state and 0, ½ or 1 over the rows, so
|AUC − AUC_rounded| ≤ Σ_b w⁺_b·w⁻_b / (2·W⁺·W⁻); each corner moves only such pairs, by at
most ½ each, so the corners' bound is never above it (and is 0 for a bin whose scores
were one value). logloss's ε-clipping, like brier's square, is monotone on the
probabilities, so the corners hold for them as for the others.

average_precision is not monotone where scores tie (a positive joining a tied group of
negatives can lower it), so it is bounded per rounded bin instead (``score_rounding``
``bins``): its template ``sql/rounding/average_precision.sql`` derives the bound.
"""

from __future__ import annotations

import dataclasses
import re

from sqlmetrics.binding import Binding
from sqlmetrics.compose.intermediates import intermediate_sql, needed
from sqlmetrics.compose.plan import base_keys, base_sums
from sqlmetrics.compose.rounding import SCORE_SPREAD
from sqlmetrics.compose.state import alias
from sqlmetrics.spec import MetricCall
from sqlmetrics.sqltext import templates

CORNER_SLICE = "sqlmetrics_corner"  # the slice numbering the corners (1..4), after the roll-up's
CORNERS = 4
ROUNDED_SLICES = "rounded_slices"
_PREFIX = "corner_"
# corner c (1..4) places the positives at score_max when c > 2 and the negatives when c is even
_CORNER_SCORE = (
    "CASE WHEN label = 1 THEN CASE WHEN corner > 2 THEN {high} ELSE {low} END "
    "ELSE CASE WHEN corner IN (2, 4) THEN {high} ELSE {low} END END"
)


def max_error_steps(binding: Binding, metric_step, dialect: str) -> dict[str, str]:
    """The steps of the bound of each of ``binding``'s calls that reports one
    (``Binding.max_error``): the corners' base and the steps their metrics read (each
    prefixed ``corner_``), each metric per slice and corner (``c_<column>``), and its
    bound per slice (``e_<column>``). ``metric_step(binding, call)``: a metric's step."""
    calls = [call for call in binding.calls if binding.max_error(call) and call.spec.score_rounding == "monotone"]
    own = {
        f"e_{call.column}": templates.render(
            call.spec.rounding_bound, {"by": ", ".join(binding.slices)}, binding.slices
        )
        for call in binding.calls
        if binding.max_error(call) and call.spec.score_rounding == "bins"
    }
    if not calls:
        return own
    corners = dataclasses.replace(binding, calls=tuple(calls), by=(*binding.by, CORNER_SLICE), ci=None)
    steps = {"base": _corner_base_sql(binding, corners)}  # reads the roll-up's base, renamed no further
    steps |= {name: intermediate_sql(corners, name, dialect) for name in needed(corners)}
    renamed = {f"{_PREFIX}{name}": sql if name == "base" else _renamed(sql, steps) for name, sql in steps.items()}
    renamed[ROUNDED_SLICES] = _rounded_slices_sql(binding)
    for call in calls:
        renamed[f"c_{call.column}"] = _renamed(metric_step(corners, call), steps)
        renamed[f"e_{call.column}"] = _bound_sql(binding, corners, call)
    return renamed | own


def _renamed(sql: str, steps: dict[str, str]) -> str:
    """``sql`` reading the corners' steps (``corner_<name>``) where it read ``steps``."""
    names = "|".join(sorted(steps, key=len, reverse=True))
    return re.sub(rf"\b(FROM|JOIN)(\s+)({names})\b", rf"\1\2{_PREFIX}\3", sql)


def _corner_base_sql(binding: Binding, corners: Binding) -> str:
    """The roll-up's base once per corner (the slice CORNER_SLICE), every score moved to
    its corner of its spread."""
    low, high = SCORE_SPREAD
    slices = [f"{s} AS {c}" for s, c in zip(binding.slices, corners.slices)] if binding.by else []
    score = _CORNER_SCORE.format(low=low, high=high)
    keys = [f"{score} AS score" if key == "score" else key for key in base_keys(binding)]
    sums = [alias(aggregate) for aggregate in base_sums(binding)]
    columns = [*slices, f"corner AS {corners.slices[-1]}", *keys, *sums]
    values = ", ".join(f"({c})" for c in range(1, CORNERS + 1))
    return f"SELECT {', '.join(columns)}\nFROM base\nCROSS JOIN (VALUES {values}) AS corners(corner)"


def _rounded_slices_sql(binding: Binding) -> str:
    """Per slice, whether rounding moved any used row's score (1) or none (0)."""
    low, high = SCORE_SPREAD
    by = ", ".join(binding.slices)
    moved = f"CASE WHEN {low} < {high} OR {low} <> score THEN 1 ELSE 0 END"
    return f"SELECT {by}, MAX({moved}) AS moved\nFROM base\nWHERE n > 0\nGROUP BY {by}"


def _bound_sql(binding: Binding, corners: Binding, call: MetricCall) -> str:
    """``call``'s bound per slice: the largest distance from its rounded value to a
    corner's (0 where rounding moved no score; infinite where the corners and the rounded
    value disagree on whether it is defined; NULL where it is undefined at all of them)."""
    name, slices = call.base_name, binding.slices
    corner_join = (
        f"JOIN m_{call.column} AS m ON {templates.same_slice(slices, 'm', 'c')}"
        if binding.by
        else (f"CROSS JOIN m_{call.column} AS m")
    )
    defined = f"COUNT(c.{name})"
    return (
        f"SELECT {', '.join(f'm.{s}' for s in slices)},\n"
        f"       CASE WHEN MAX(r.moved) = 0 AND MIN(m.{name}) IS NOT NULL THEN CAST(0 AS DOUBLE)\n"
        f"            WHEN {defined} = {CORNERS} AND MIN(m.{name}) IS NOT NULL THEN MAX(ABS(c.{name} - m.{name}))\n"
        f"            WHEN {defined} = 0 AND MIN(m.{name}) IS NULL THEN NULL\n"
        f"            ELSE CAST('Infinity' AS DOUBLE) END AS {name}_max_error\n"
        f"FROM c_{call.column} AS c\n{corner_join}\n"
        f"LEFT JOIN {ROUNDED_SLICES} AS r ON {templates.same_slice(slices, 'r', 'm')}\n"
        f"GROUP BY {', '.join(f'm.{s}' for s in slices)}"
    )
