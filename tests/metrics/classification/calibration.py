"""calibration: Σ w·s / Σ w·y with numpy (scikit-learn has no such metric); NULL without positive weight."""

import numpy as np


def REFERENCE(y, s, w):
    positives = np.sum(w * y)
    return float(np.sum(w * s) / positives) if positives > 0 else None
