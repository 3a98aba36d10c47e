"""logloss_reliability: Σ_b W_b·KL(ō_b ‖ f̄_b) / W over calibration_curve's bins, each bin's
mean score clipped to [ε, 1 − ε] as logloss clips a score (scipy's rel_entr); NULL on
zero total weight."""

import numpy as np

from metrics.classification._calibration import EPSILON, bins_of, divergence


def REFERENCE(y, s, w, bins=15, strategy="uniform"):
    if w.sum() == 0:
        return None
    weight, observed, mean_score = bins_of(y, s, w, bins, strategy)
    forecast = np.clip(mean_score, EPSILON, 1 - EPSILON)
    return float((weight * divergence(observed, forecast)).sum() / w.sum())
