"""multiclass_average_precision: one class against the rest by scikit-learn's
average_precision_score, and its multi-label call over label_binarize to compare the
averages with (see multiclass_auc.py for PER_CLASS and MULTICLASS)."""

from sklearn import metrics as skm
from sklearn.preprocessing import label_binarize


def PER_CLASS(positive, score, w):
    return skm.average_precision_score(positive, score, sample_weight=w)


def MULTICLASS(y, scores, w, classes, average):
    return skm.average_precision_score(label_binarize(y, classes=classes), scores, average=average, sample_weight=w)
