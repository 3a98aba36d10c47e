"""auc: area under the ROC curve, exact and tie-correct, as the Mann–Whitney statistic."""

from __future__ import annotations

import polars as pl

from sqlmetrics.metrics.classification._binary import IntoExpr, binary_weights, ratio
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="auc",
    family="classification",
    summary="area under the ROC curve: P(positive outscores negative), ties counting 1/2",
    template="classification/auc.sql",
    reads="score_hist",
    reference="sklearn.metrics.roc_auc_score",
)


def expr(score: IntoExpr, label: IntoExpr, weight: IntoExpr | None = None) -> pl.Expr:
    """AUC = Σ_pos w⁺(s)·(W⁻(< s) + W⁻(= s)/2) / (W⁺·W⁻).

    The weighted probability that a random positive outscores a random negative, a tie
    counting ½; equal to the area under the ROC curve with ties as diagonal segments
    (scikit-learn's ``roc_auc_score``) and to the rank-sum formula with average ranks.
    Only the order of scores matters, so any real score (probability, logit) works.
    NULL when there are no positives or no negatives (scikit-learn raises there).

    The rows are sorted by score once; each run of tied scores gets the negative weight
    strictly below it and up to its end from one cumulative sum.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"score": [0.3, 0.5, 0.5, 0.5, 0.5, 0.7, 0.8],
    ...                    "label": [0, 1, 1, 0, 0, 1, 1]})
    >>> df.select(smp.auc("score", "label")).item()  # 12 pairs: 8 won, 4 tied: 10/12
    0.8333333333333334
    """
    s, w_pos, w_neg = binary_weights(score, label, weight)
    s_sorted, pos, neg = s.sort_by(s), w_pos.sort_by(s), w_neg.sort_by(s)
    neg_cum = neg.cum_sum()
    first_of_tie = (s_sorted != s_sorted.shift(1)).fill_null(True)
    last_of_tie = (s_sorted != s_sorted.shift(-1)).fill_null(True)
    neg_below = pl.when(first_of_tie).then(neg_cum - neg).forward_fill()
    neg_up_to = pl.when(last_of_tie).then(neg_cum).backward_fill()
    return ratio((pos * (neg_below + neg_up_to) / 2).sum(), w_pos.sum() * w_neg.sum())
