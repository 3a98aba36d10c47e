"""median_absolute_error: scikit-learn weighted median; unweighted it takes numpy median,
the same number, pinned separately in tests/test_regression_reference.py."""

from sklearn import metrics as skm


def REFERENCE(y, p, w):
    if w.sum() == 0:
        return None
    return skm.median_absolute_error(y, p, sample_weight=w)
