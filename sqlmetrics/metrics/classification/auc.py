"""auc: area under the ROC curve, exact and tie-correct, as the Mann–Whitney statistic."""

from __future__ import annotations

import polars as pl

from sqlmetrics.intervals.delong import DELONG
from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights, col, count, ratio
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="auc",
    score_rounding="monotone",
    family="classification",
    polars_form="histogram",
    summary="area under the ROC curve: P(positive outscores negative), ties counting 1/2",
    template="classification/auc.sql",
    intermediates=("score_cum",),
    reference="sklearn.metrics.roc_auc_score",
    interval=DELONG,
)


def from_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """AUC from a score histogram (every score distinct): one sort, one running sum."""
    pos, neg = shares(w_pos.sort_by(s), w_neg.sort_by(s))
    return both_classes(w_pos, w_neg, (pos * (neg.cum_sum() - neg / 2)).sum())


def shares(w_pos: pl.Expr, w_neg: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Each positive weight over W⁺ and each negative weight over W⁻: AUC sums their
    products, which then never overflow or underflow whatever the size of the weights
    (W⁺·W⁻ of weights 1e200 would be inf). Taken after any sort (on polars 1.39, the floor,
    ``(w / w.sum()).sort_by(...)`` in a group_by context misplaced the rows)."""
    return w_pos / w_pos.sum(), w_neg / w_neg.sum()


def both_classes(w_pos: pl.Expr, w_neg: pl.Expr, value: pl.Expr) -> pl.Expr:
    """``value`` where both classes have weight, else NULL."""
    return pl.when((w_pos.sum() > 0) & (w_neg.sum() > 0)).then(value)


def rank_sum(s: pl.Expr, positive: pl.Expr, negative: pl.Expr) -> pl.Expr:
    """Unweighted AUC by the rank sum (``of_rank_sum``), ties sharing the mean of their
    ranks; a row of neither class must have a NULL ``s``, so that it takes no rank."""
    return of_rank_sum(s.rank("average").filter(positive).sum(), count(positive), count(negative))


def of_rank_sum(positive_ranks: pl.Expr, p: pl.Expr, n: pl.Expr) -> pl.Expr:
    """AUC = (R⁺ − P(P + 1)/2) / (P·N), R⁺ the sum of the P positives' average ranks
    among the P + N rows; NULL without both classes. P and N are Float64 counts: P·N
    passes 2³² at 65,536 rows of each class."""
    return ratio(positive_ranks - p * (p + 1) / 2, p * n)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """AUC = Σ_pos w⁺(s)·(W⁻(< s) + W⁻(= s)/2) / (W⁺·W⁻).

    The weighted probability that a random positive outscores a random negative, a tie
    counting ½; equal to the area under the ROC curve with ties as diagonal segments
    (scikit-learn's ``roc_auc_score``) and to the rank-sum formula with average ranks.
    Only the order of scores matters, so any real score (probability, logit) works.
    NULL when there are no positives or no negatives (scikit-learn raises there).

    With weights, each weight is divided by its class's total first, so that the value is
    exact whatever the size of the weights (1e-300 or 1e300 alike).
    Without weights it is the rank-sum formula (R⁺ − P(P + 1)/2) / (P·N), R⁺ the sum of
    the positives' average ranks: one sort. With weights, ties are resolved with two
    sorts by score, negatives first within a tie and then positives first: the negative
    weight below a positive is W⁻(<= s) in the first order and W⁻(< s) in the second,
    and their mean is the tie-corrected credit.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8],
    ...                    "label": [0, 1, 1, 0, 0, 1, 1]})
    >>> df.select(smp.auc("score", "label")).item()  # 12 pairs: 8 won, 4 tied: 10/12
    0.8333333333333334
    """
    if weight is None:  # a row with a NULL label or score is masked, not filtered out (a copy)
        s, y = col(score).cast(pl.Float64), col(label).cast(pl.Float64)
        used = s.is_not_null() & y.is_not_null()
        return rank_sum(pl.when(y.is_not_null()).then(s), used & (y == 1), used & (y != 1))
    s, w_pos, w_neg = binary_weights(score, label, weight)
    w_pos, w_neg = w_pos.fill_null(0.0), w_neg.fill_null(0.0)  # running sums must not stop at NULLs

    def credit(positives_first: bool) -> pl.Expr:
        order = [s, w_pos > 0]
        pos, neg = shares(*(w.sort_by(order, descending=[False, positives_first]) for w in (w_pos, w_neg)))
        return (pos * neg.cum_sum()).sum()

    return both_classes(w_pos, w_neg, (credit(False) + credit(True)) / 2)
