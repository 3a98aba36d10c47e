"""logloss_resolution: Σ_b W_b·KL(ō_b ‖ ō) / W over calibration_curve's bins (scipy's
rel_entr); NULL on zero total weight."""

from metrics.classification._calibration import base_rate, bins_of, divergence


def REFERENCE(y, s, w, bins=15, strategy="uniform"):
    if w.sum() == 0:
        return None
    weight, observed, _ = bins_of(y, s, w, bins, strategy)
    return float((weight * divergence(observed, base_rate(y, w))).sum() / w.sum())
