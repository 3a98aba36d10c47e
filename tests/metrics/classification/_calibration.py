"""The calibration bins of one slice's rows as scikit-learn's calibration_curve cuts them
(numpy's edges; ``np.searchsorted(edges[1:-1], s)``: a score equal to an edge in the
lower bin), and each bin's weighted sums, with numpy alone: the references of ece and
of the reliability and resolution terms."""

import numpy as np
from scipy.special import rel_entr

EPSILON = np.finfo(np.float64).eps  # logloss's clip of a score, applied to a bin's mean score


def edges(s: np.ndarray, bins: int, strategy: str) -> np.ndarray:
    """sklearn.calibration.calibration_curve's edges (its own two lines)."""
    if strategy == "quantile":
        return np.percentile(s, np.linspace(0, 1, bins + 1) * 100)
    return np.linspace(0.0, 1.0, bins + 1)


def bins_of(y, s, w, bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W_b, o_b, f_b) of the bins of weight > 0: weight, observed rate, mean score."""
    ids = np.searchsorted(edges(s, bins, strategy)[1:-1], s)
    weight = np.bincount(ids, weights=w, minlength=bins)
    positives = np.bincount(ids, weights=w * y, minlength=bins)
    scores = np.bincount(ids, weights=w * s, minlength=bins)
    kept = weight > 0
    return weight[kept], positives[kept] / weight[kept], scores[kept] / weight[kept]


def divergence(o: np.ndarray, f: np.ndarray | float) -> np.ndarray:
    """KL(Bernoulli(o) ‖ Bernoulli(f)) in nats, 0·ln 0 = 0 (scipy's rel_entr)."""
    return rel_entr(o, f) + rel_entr(1 - o, 1 - f)


def base_rate(y, w) -> float:
    return float((w * y).sum() / w.sum())
