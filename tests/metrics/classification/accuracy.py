"""accuracy: scikit-learn's accuracy_score of the thresholded scores; NULL on zero total weight."""

from sklearn import metrics as skm

from metrics.classification._common import predicted


def REFERENCE(y, s, w, threshold=0.5):
    if w.sum() == 0:
        return None
    return float(skm.accuracy_score(y, predicted(s, threshold), sample_weight=w))
