"""mean_error: the weighted mean of p - y (numpy; scikit-learn has none); NULL on zero total weight."""

import numpy as np


def REFERENCE(y, p, w):
    return float(np.average(p - y, weights=w)) if w.sum() > 0 else None
