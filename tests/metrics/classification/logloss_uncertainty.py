"""logloss_uncertainty: scipy.stats.entropy of (ō, 1 − ō) in nats; NULL on zero total weight."""

from scipy.stats import entropy

from metrics.classification._calibration import base_rate


def REFERENCE(y, s, w):
    if w.sum() == 0:
        return None
    rate = base_rate(y, w)
    return float(entropy([rate, 1 - rate]))
