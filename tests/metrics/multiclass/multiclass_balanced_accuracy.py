"""multiclass_balanced_accuracy: scikit-learn's balanced_accuracy_score, which leaves a
class that is only predicted out (with a warning), as sqlmetrics does."""

import warnings

from sklearn import metrics as skm


def REFERENCE(y, p, w):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "y_pred contains classes not in y_true", UserWarning)
        return float(skm.balanced_accuracy_score(y, p, sample_weight=w))
