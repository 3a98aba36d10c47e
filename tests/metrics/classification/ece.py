"""ece: the bins of scikit-learn's calibration_curve, the gaps |ō_b − f̄_b| averaged by
weight (l1), root mean square (l2) or the largest (max), with numpy; NULL on zero total
weight. (torchmetrics' and netcal's formulas, which put a score on an edge in the upper
bin, are compared in tests/test_calibration_metrics.py.)"""

import numpy as np

from metrics.classification._calibration import bins_of


def REFERENCE(y, s, w, bins=15, strategy="uniform", norm="l1"):
    if w.sum() == 0:
        return None
    weight, observed, mean_score = bins_of(y, s, w, bins, strategy)
    gaps = np.abs(observed - mean_score)
    if norm == "l1":
        return float((weight * gaps).sum() / w.sum())
    if norm == "l2":
        return float(np.sqrt((weight * gaps**2).sum() / w.sum()))
    return float(gaps.max())
