"""ne: torchrec's normalized entropy, its torchrec/metrics/ne.py written out with numpy
(compute_cross_entropy, _compute_cross_entropy_norm, compute_ne; eta = 1e-12, set in
NEMetricComputation.__init__): predictions and the mean label clamped to [eta, 1 − eta],
log₂ in both sums. torchrec divides by a clamped norm for a one-class slice (a huge
number); sqlmetrics defines it as NULL (the base rate has no entropy), as on zero weight."""

import numpy as np

ETA = 1e-12


def torchrec_ne(labels, predictions, weights):
    predictions = np.clip(predictions.astype(np.float64), ETA, 1 - ETA)
    cross_entropy = -weights * labels * np.log2(predictions) - weights * (1.0 - labels) * np.log2(1.0 - predictions)
    pos_labels, neg_labels = (weights * labels).sum(), (weights * (1.0 - labels)).sum()
    mean_label = np.clip(pos_labels / weights.sum(), ETA, 1 - ETA)
    norm = -pos_labels * np.log2(mean_label) - neg_labels * np.log2(1.0 - mean_label)
    return float(cross_entropy.sum() / norm)


def REFERENCE(y, s, w):
    if (w * y).sum() == 0 or (w * (1 - y)).sum() == 0:
        return None
    return torchrec_ne(y.astype(np.float64), s, w)
