"""brier_resolution: Σ_b W_b·(ō_b − ō)² / W over calibration_curve's bins (Murphy 1973),
numpy; NULL on zero total weight."""

from metrics.classification._calibration import base_rate, bins_of


def REFERENCE(y, s, w, bins=15, strategy="uniform"):
    if w.sum() == 0:
        return None
    weight, observed, _ = bins_of(y, s, w, bins, strategy)
    return float((weight * (observed - base_rate(y, w)) ** 2).sum() / w.sum())
