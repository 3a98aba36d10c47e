"""average_precision: scikit-learn's average_precision_score; it gives 1.0 for positives
only and warns for negatives only, where sqlmetrics says NULL."""

from sklearn import metrics as skm

from metrics.classification._common import both_classes


def REFERENCE(y, s, w):
    return float(skm.average_precision_score(y, s, sample_weight=w)) if both_classes(y, w) else None
