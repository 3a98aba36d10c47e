"""Multi-class classification: a predicted class (the prediction) against the true class (the label).

The steps their templates read (``INTERMEDIATES``, collected by the registry): the
confusion matrix and per-class counts (from ``base``), and one score histogram per class
with its running sums (one-vs-rest). The polars engine reads the same plan through the
functions exported here.
"""

from sqlmetrics.metrics.multiclass._classes import COUNTS, class_confusion, class_counts, per_class_scores
from sqlmetrics.metrics.multiclass._ovr import averaged, class_score_hist, long_rows, wide_rows
from sqlmetrics.steps import Intermediate, cumulative

INTERMEDIATES = {
    "class_confusion": Intermediate("intermediates/class_confusion.sql"),
    "class_counts": Intermediate("intermediates/class_counts.sql", after=("class_confusion",)),
    "class_score_hist": Intermediate("intermediates/class_score_hist.sql"),
    "class_score_cum": cumulative("class_score_hist", keys=("class",)),
}

__all__ = [
    "COUNTS",
    "INTERMEDIATES",
    "averaged",
    "class_confusion",
    "class_counts",
    "class_score_hist",
    "long_rows",
    "per_class_scores",
    "wide_rows",
]
