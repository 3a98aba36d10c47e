"""brier_uncertainty: ō·(1 − ō), ō the weighted positive rate (Murphy 1973); NULL on zero
total weight."""

from metrics.classification._calibration import base_rate


def REFERENCE(y, s, w):
    if w.sum() == 0:
        return None
    rate = base_rate(y, w)
    return rate * (1 - rate)
