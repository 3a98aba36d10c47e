"""multiclass_auc: one class against the rest by scikit-learn's roc_auc_score, and
scikit-learn's own multi-class call (multi_class="ovr") to compare the averages with.

A one-vs-rest metric defines ``PER_CLASS(positive, score, w)`` (one class's binary value
from its indicator and score column) and ``MULTICLASS(y, scores, w, classes, average)``
(scikit-learn's multi-class call; ``classes`` sorted, ``scores`` in their order)."""

from sklearn import metrics as skm


def PER_CLASS(positive, score, w):
    return skm.roc_auc_score(positive, score, sample_weight=w)


def MULTICLASS(y, scores, w, classes, average):
    return skm.roc_auc_score(y, scores, multi_class="ovr", average=average, sample_weight=w, labels=classes)
