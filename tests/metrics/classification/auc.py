"""auc: scikit-learn's roc_auc_score; it raises on one class, where sqlmetrics says NULL."""

from sklearn import metrics as skm

from metrics.classification._common import both_classes


def REFERENCE(y, s, w):
    return float(skm.roc_auc_score(y, s, sample_weight=w)) if both_classes(y, w) else None
