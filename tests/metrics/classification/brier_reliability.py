"""brier_reliability: Σ_b W_b·(f̄_b − ō_b)² / W over calibration_curve's bins (Murphy 1973),
numpy; NULL on zero total weight."""

from metrics.classification._calibration import bins_of


def REFERENCE(y, s, w, bins=15, strategy="uniform"):
    if w.sum() == 0:
        return None
    weight, observed, mean_score = bins_of(y, s, w, bins, strategy)
    return float((weight * (mean_score - observed) ** 2).sum() / w.sum())
