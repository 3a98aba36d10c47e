"""cohen_kappa: scikit-learn's cohen_kappa_score (weights None, linear or quadratic); its
nan (0/0) is NULL."""

from sklearn import metrics as skm

from metrics.multiclass._common import none_if_nan


def REFERENCE(y, p, w, weights="none"):
    weights = None if weights == "none" else weights
    return none_if_nan(skm.cohen_kappa_score(y, p, weights=weights, sample_weight=w))
