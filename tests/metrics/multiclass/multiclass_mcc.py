"""multiclass_mcc: scikit-learn's matthews_corrcoef. Where MCC is 0/0 (fewer than two
classes with weight among the labels or the predictions) scikit-learn says 0.0 and
sqlmetrics NULL."""

from sklearn import metrics as skm

from metrics.multiclass._common import classes_with_weight


def REFERENCE(y, p, w):
    value = skm.matthews_corrcoef(y, p, sample_weight=w)
    if classes_with_weight(y, w) < 2 or classes_with_weight(p, w) < 2:
        assert value == 0.0  # scikit-learn's convention where MCC is 0/0
        return None
    return float(value)
