"""precision: scikit-learn's precision_score(zero_division=nan) of the thresholded scores; nan is NULL."""

import numpy as np
from sklearn import metrics as skm

from metrics.classification._common import none_if_nan, predicted


def REFERENCE(y, s, w, threshold=0.5):
    if w.sum() == 0:
        return None
    pred = predicted(s, threshold)
    return none_if_nan(skm.precision_score(y, pred, sample_weight=w, zero_division=np.nan, labels=[0, 1]))
