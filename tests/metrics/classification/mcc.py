"""mcc: scikit-learn's matthews_corrcoef of the thresholded scores. It returns 0.0 when a
marginal of the confusion matrix is empty (0/0); sqlmetrics says NULL."""

from sklearn import metrics as skm

from metrics.classification._common import confusion, predicted


def REFERENCE(y, s, w, threshold=0.5):
    tn, fp, fn, tp = confusion(y, s, w, threshold)
    if 0 in (tp + fp, tp + fn, tn + fp, tn + fn):
        return None
    return float(skm.matthews_corrcoef(y, predicted(s, threshold), sample_weight=w))
