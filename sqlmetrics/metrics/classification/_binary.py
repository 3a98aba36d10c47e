"""Shared pieces of the binary-classification metrics' polars forms.

Every binary metric module has two polars forms that mirror its SQL template:

* ``from_histogram(s, w_pos, w_neg, **params)``: the metric from each score's positive
  and negative weight, exactly the columns of ``score_hist`` (the polars engine
  evaluates it on the histogram, where every score is distinct);
* ``expr(score, label, weight=None, **params)``: the public row-level expression. Rows are
  reduced to ``w_pos = w·[y = 1]`` and ``w_neg = w·[y = 0]`` by ``binary_weights``;
  metrics that sum over rows apply ``from_histogram`` to those, metrics that sort
  (auc, average_precision) also resolve tied scores.

A row with a NULL score, label or weight gets NULL weights, so it counts for nothing
(``sm.evaluate`` also reports how many such rows it excluded).
"""

from __future__ import annotations

import re

import polars as pl

from sqlmetrics.spec import Param, SumsOfRows

IntoExpr = str | pl.Expr

THRESHOLD = Param(
    "threshold",
    float,
    0.5,
    "a score >= threshold predicts the positive class",
)


# beta is held at most this: beyond, beta² would overflow, and the F-score's weights
# beta²/(1 + beta²) and 1/(1 + beta²) differ from their limits 1 and 0 by < 1e-200 (a
# beta whose square underflows to 0 gives precision, as scikit-learn with beta² = 0)
MAX_BETA = 1e100


def score_hist(base: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The polars form of ``score_hist``: one row per slice and distinct score with its
    positive and negative weight, the input of every metric's ``from_histogram``, from
    the polars engine's ``base`` (keyed by score and summing the positives' weight
    ``w_pos``; summed over the classes when base is keyed by them too). SQL's has a row
    per score and label instead: the same weights once summed by score."""
    used = base.filter(pl.col("n") > 0)
    if "true_class" in base.columns:
        used = used.group_by([*by, "score"]).agg(pl.col("w", "w_pos").sum())
    return used.with_columns(w_neg=pl.col("w") - pl.col("w_pos"))


def fscore_weights(beta: float) -> tuple[float, float]:
    """``(r, q)``: F_β = TP / (TP + r·FN + q·FP) with r = β²/(1 + β²), q = 1/(1 + β²), the
    same value as (1 + β²)·TP / ((1 + β²)·TP + β²·FN + FP) without a product that
    overflows for a large β or weight (the SQL of fbeta.sql, with β held
    at most ``MAX_BETA``)."""
    b = min(beta, MAX_BETA)
    return b * b / (1 + b * b), 1 / (1 + b * b)


def fscore_gradient(r: str, q: str) -> tuple[str, str, str, str]:
    """The gradient of F = tp / (tp + r·fn + q·fp) in the confusion cells' shares, as SQL
    over ``tp``, ``fp``, ``tn``, ``fn`` (``intervals/confusion_delta.py``), with d the
    denominator: ∂F/∂tp = (r·fn + q·fp)/d², ∂F/∂fp = −q·tp/d², ∂F/∂tn = 0,
    ∂F/∂fn = −r·tp/d²; ``r`` and ``q`` are SQL too."""
    squared = f"CAST(NULLIF((tp + {r} * fn + {q} * fp) * (tp + {r} * fn + {q} * fp), 0) AS DOUBLE)"
    return f"({r} * fn + {q} * fp) / {squared}", f"-{q} * tp / {squared}", "0", f"-{r} * tp / {squared}"


def col(value: IntoExpr) -> pl.Expr:
    return pl.col(value) if isinstance(value, str) else value


def binary_weights(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """``(score, w_pos, w_neg)`` as Float64 expressions; both weights are NULL for a row
    with a NULL score, label or weight, so sums skip it and ``w_pos.count()`` counts the
    rows used."""
    s, y = col(score).cast(pl.Float64), col(label).cast(pl.Float64)
    present = s.is_not_null() & y.is_not_null()
    if weight is None:
        w = pl.when(present).then(1.0)
    else:
        w = col(weight).cast(pl.Float64)
        w = pl.when(present & w.is_not_null()).then(w)
    return s, w * (y == 1).cast(pl.Float64), w * (y == 0).cast(pl.Float64)


def count(condition: pl.Expr) -> pl.Expr:
    """The number of rows where ``condition`` holds, as Float64. polars counts (``len()``,
    ``count()``, a boolean ``sum()``) are UInt32: a product of two of them (P·N) wraps
    past 2³², and a difference that goes below 0 wraps too. Count with this before any
    arithmetic."""
    return condition.cast(pl.Float64).sum()


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator, NULL (never inf or NaN) when the denominator is 0."""
    return pl.when(denominator != 0).then(numerator / denominator)


def confusion(
    s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr, threshold: float
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """The weighted ``(tp, fp, tn, fn)`` at ``threshold`` (score >= threshold predicts 1);
    NULL when no row is used (an empty slice has no counts, as in SQL)."""
    predicted = (s >= threshold).fill_null(False)
    used = w_pos.is_not_null().any()
    counts = (
        pl.when(predicted).then(w_pos).otherwise(0.0),
        pl.when(predicted).then(w_neg).otherwise(0.0),
        pl.when(predicted).then(0.0).otherwise(w_neg),
        pl.when(predicted).then(0.0).otherwise(w_pos),
    )
    return tuple(pl.when(used).then(count.sum()) for count in counts)


# each row's part of the confusion counts tp, fp, tn, fn at {{ threshold }} (score >= threshold predicts 1)
CONFUSION_SUMMANDS = (
    "CASE WHEN label = 1 AND score >= {{ threshold }} THEN 1 ELSE 0 END",
    "CASE WHEN label = 0 AND score >= {{ threshold }} THEN 1 ELSE 0 END",
    "CASE WHEN label = 0 AND score < {{ threshold }} THEN 1 ELSE 0 END",
    "CASE WHEN label = 1 AND score < {{ threshold }} THEN 1 ELSE 0 END",
)


def of_confusion_shares(value: str) -> SumsOfRows:
    """A metric of the confusion counts as a function of sums over rows (``Metric.sums``):
    ``value``, SQL over the cells' shares ``tp``, ``fp``, ``tn``, ``fn`` (as the delta
    method's gradients are written: shares, so that no product of weights overflows),
    read from the four sums, each share its sum over their total."""
    total = " + ".join(f"{{{{ s{k} }}}}" for k in range(1, 5))
    shares = {
        cell: f"({{{{ s{k} }}}} / CAST(NULLIF({total}, 0) AS DOUBLE))"
        for k, cell in enumerate(("tp", "fp", "tn", "fn"), 1)
    }
    return SumsOfRows(CONFUSION_SUMMANDS, re.sub(r"\b(tp|fp|tn|fn)\b", lambda m: shares[m.group(1)], value))
