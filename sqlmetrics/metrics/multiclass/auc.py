"""multiclass_auc: one-vs-rest AUC of every class, averaged over the classes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from sqlmetrics.binding.class_scores import LongClassScores
from sqlmetrics.metrics.classification import auc
from sqlmetrics.metrics.multiclass._ovr import OVR_AVERAGE, Frame, per_slice
from sqlmetrics.spec import Metric

SPEC = Metric(
    name="multiclass_auc",
    family="multiclass",
    polars_form="class_histogram",
    summary="one-vs-rest AUC of each class c (c against the rest, by c's score), averaged: macro or weighted",
    template="multiclass/auc.sql",
    intermediates=("class_score_cum",),
    needs=("label", "class_scores"),
    params=(OVR_AVERAGE,),
    outputs=("classes", "skipped"),
    label_domain="class",
    reference="sklearn.metrics.roc_auc_score(multi_class='ovr')",
)


def from_class_histogram(s: pl.Expr, w_pos: pl.Expr, w_neg: pl.Expr) -> pl.Expr:
    """AUC_c of one class's score histogram: the binary ``auc.from_histogram``."""
    return auc.from_histogram(s, w_pos, w_neg)


def frame(
    data: Frame,
    *,
    label: str,
    class_scores: Mapping[Any, str] | LongClassScores,
    weight: str | None = None,
    by: Sequence[str] = (),
    average: str = "macro",
) -> Frame:
    """One-vs-rest AUC, scikit-learn's ``roc_auc_score(y, scores, multi_class="ovr",
    average=..., sample_weight=w)``:

        AUC_c = P(s_c(x⁺) > s_c(x⁻)) + ½·P(s_c(x⁺) = s_c(x⁻))

    for every class c, x⁺ a row of true class c and x⁻ any other row, weighted by sample
    weight products (the binary ``auc`` of "true class is c" against c's score; only the
    order of c's scores matters, so they need not sum to 1). ``average="macro"`` is the
    mean of AUC_c over the classes, ``"weighted"`` weighs AUC_c by the class's true
    weight W⁺_c (its prevalence). A class whose rows all lie on one side (no positive or
    no negative weight in the slice, where scikit-learn raises) has no AUC: it is left
    out of the average and counted in ``auc_skipped``; ``auc_classes`` counts the classes
    averaged. NULL when no class has an AUC.

    ``class_scores`` is ``{class: score column}`` (wide) or
    ``sm.long_scores(table, row_id=..., class_=..., score=...)`` (long); the classes are
    its keys or the table's distinct classes. Rows with a NULL label, weight or class
    score are left out. Unlike ``sm.evaluate``, nothing is validated.

    >>> import polars as pl, sqlmetrics.polars as smp
    >>> df = pl.DataFrame({"y": ["a", "b", "c", "a"],
    ...                    "p_a": [0.6, 0.3, 0.2, 0.3], "p_b": [0.2, 0.4, 0.4, 0.4], "p_c": [0.2, 0.3, 0.4, 0.3]})
    >>> # a: .6 beats the others' .3 and .2, .3 ties .3 and beats .2: 3.5 / 4;
    >>> # b: .4 beats .2 and ties .4 twice: 2 / 3; c: .4 beats .2, .3, .3: 1
    >>> scores = {"a": "p_a", "b": "p_b", "c": "p_c"}
    >>> value, classes, skipped = smp.multiclass_auc(df, label="y", class_scores=scores).row(0)
    >>> round(value, 12), classes, skipped
    (0.847222222222, 3, 0)
    """
    average = OVR_AVERAGE.validate(SPEC.name, average)
    return per_slice(
        data, from_class_histogram, "auc",
        label=label, class_scores=class_scores, weight=weight, by=by, average=average,
    )  # fmt: skip
