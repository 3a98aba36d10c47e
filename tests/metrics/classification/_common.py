"""Shared pieces of the classification references: the rows of one slice that
sqlmetrics uses (no NULLs) come as numpy arrays ``y`` (0/1), ``s`` (score), ``w``
(weight); a reference returns a float, or None where sqlmetrics defines the metric as
NULL (scikit-learn returns nan, 0.0, or raises there: each module spells out its mapping)."""

import numpy as np
from sklearn import metrics as skm


def none_if_nan(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def both_classes(y: np.ndarray, w: np.ndarray) -> bool:
    return w[y == 1].sum() > 0 and w[y == 0].sum() > 0


def predicted(s: np.ndarray, threshold: float) -> np.ndarray:
    return (s >= threshold).astype(int)


def confusion(y, s, w, threshold=0.5) -> tuple[float, float, float, float]:
    """(tn, fp, fn, tp) weighted, as scikit-learn lays out confusion_matrix."""
    if w.sum() == 0:  # scikit-learn refuses all-zero weights; every count is 0
        return 0.0, 0.0, 0.0, 0.0
    tn, fp, fn, tp = skm.confusion_matrix(y, predicted(s, threshold), labels=[0, 1], sample_weight=w).ravel()
    return float(tn), float(fp), float(fn), float(tp)


def count(index: int):
    """The reference of one confusion count (its index in ``confusion``); NULL on an empty slice."""

    def reference(y, s, w, threshold=0.5):
        return confusion(y, s, w, threshold)[index] if len(y) else None

    return reference
