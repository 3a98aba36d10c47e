"""rmse: scikit-learn's root_mean_squared_error with sample weights; NULL on zero total weight."""

from sklearn import metrics as skm


def REFERENCE(y, p, w):
    return float(skm.root_mean_squared_error(y, p, sample_weight=w)) if w.sum() > 0 else None
