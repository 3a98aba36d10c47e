"""balanced_accuracy: scikit-learn's balanced_accuracy_score of the thresholded scores. It
leaves a class absent from the labels out (with a warning), as sqlmetrics does; NULL on
zero total weight, where scikit-learn's mean over no class is nan."""

import warnings

from sklearn import metrics as skm

from metrics.classification._common import predicted


def REFERENCE(y, s, w, threshold=0.5):
    if w.sum() == 0:
        return None
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "y_pred contains classes not in y_true", UserWarning)
        warnings.filterwarnings("ignore", "A single label was found", UserWarning)
        return float(skm.balanced_accuracy_score(y, predicted(s, threshold), sample_weight=w))
