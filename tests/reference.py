"""Independent reference values for every classification metric, from scikit-learn
(or numpy where scikit-learn has no such metric).

Each reference takes the rows of one slice that sqlmetrics uses (no NULLs) as numpy
arrays and returns a float, or None where sqlmetrics defines the metric as NULL
(scikit-learn returns nan, 0.0, or raises there: each mapping is spelled out below).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn import metrics as skm

Reference = Callable[..., "float | None"]


def _none_if_nan(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def _both_classes(y: np.ndarray, w: np.ndarray) -> bool:
    return w[y == 1].sum() > 0 and w[y == 0].sum() > 0


def _predicted(s: np.ndarray, threshold: float) -> np.ndarray:
    return (s >= threshold).astype(int)


def confusion(y, s, w, threshold=0.5) -> tuple[float, float, float, float]:
    """(tn, fp, fn, tp) weighted, as scikit-learn lays out confusion_matrix."""
    if w.sum() == 0:  # scikit-learn refuses all-zero weights; every count is 0
        return 0.0, 0.0, 0.0, 0.0
    tn, fp, fn, tp = skm.confusion_matrix(y, _predicted(s, threshold), labels=[0, 1], sample_weight=w).ravel()
    return float(tn), float(fp), float(fn), float(tp)


def auc(y, s, w):
    # roc_auc_score raises on one class; sqlmetrics says NULL.
    return float(skm.roc_auc_score(y, s, sample_weight=w)) if _both_classes(y, w) else None


def average_precision(y, s, w):
    # sklearn gives 1.0 for positives only and warns for negatives only; sqlmetrics NULL.
    return float(skm.average_precision_score(y, s, sample_weight=w)) if _both_classes(y, w) else None


def logloss(y, s, w):
    if w.sum() == 0:
        return None
    return float(skm.log_loss(y, s, sample_weight=w, labels=[0, 1]))


def brier(y, s, w):
    if w.sum() == 0:
        return None
    return float(skm.brier_score_loss(y, s, sample_weight=w, labels=[0, 1]))


def accuracy(y, s, w, threshold=0.5):
    if w.sum() == 0:
        return None
    return float(skm.accuracy_score(y, _predicted(s, threshold), sample_weight=w))


def precision(y, s, w, threshold=0.5):
    if w.sum() == 0:
        return None
    pred = _predicted(s, threshold)
    return _none_if_nan(skm.precision_score(y, pred, sample_weight=w, zero_division=np.nan, labels=[0, 1]))


def recall(y, s, w, threshold=0.5):
    if w.sum() == 0:
        return None
    pred = _predicted(s, threshold)
    return _none_if_nan(skm.recall_score(y, pred, sample_weight=w, zero_division=np.nan, labels=[0, 1]))


def specificity(y, s, w, threshold=0.5):
    if w.sum() == 0:
        return None
    pred = _predicted(s, threshold)
    return _none_if_nan(skm.recall_score(y, pred, pos_label=0, sample_weight=w, zero_division=np.nan, labels=[0, 1]))


def f1(y, s, w, threshold=0.5):
    if w.sum() == 0:
        return None
    pred = _predicted(s, threshold)
    return _none_if_nan(skm.f1_score(y, pred, sample_weight=w, zero_division=np.nan, labels=[0, 1]))


def fbeta(y, s, w, beta=1.0, threshold=0.5):
    if w.sum() == 0:
        return None
    pred = _predicted(s, threshold)
    return _none_if_nan(skm.fbeta_score(y, pred, beta=beta, sample_weight=w, zero_division=np.nan, labels=[0, 1]))


def mcc(y, s, w, threshold=0.5):
    # matthews_corrcoef returns 0.0 when a marginal is empty; sqlmetrics says NULL.
    tn, fp, fn, tp = confusion(y, s, w, threshold)
    if 0 in (tp + fp, tp + fn, tn + fp, tn + fn):
        return None
    return float(skm.matthews_corrcoef(y, _predicted(s, threshold), sample_weight=w))


def _count(index: int) -> Reference:
    def count(y, s, w, threshold=0.5):
        return confusion(y, s, w, threshold)[index] if len(y) else None

    return count


def calibration(y, s, w):
    positives = np.sum(w * y)
    return float(np.sum(w * s) / positives) if positives > 0 else None


def label_mean(y, s, w):
    return float(np.average(y, weights=w)) if w.sum() > 0 else None


def score_mean(y, s, w):
    return float(np.average(s, weights=w)) if w.sum() > 0 else None


def gauc(y, s, w, q, weighting="impressions"):
    """Plain Python GAUC: group by query, skip one-class groups, weighted mean of AUCs.

    Returns (gauc, groups used, groups skipped)."""
    total = weights = 0.0
    used = skipped = 0
    for query in dict.fromkeys(q.tolist()):
        rows = q == query
        yq, sq, wq = y[rows], s[rows], w[rows]
        if not _both_classes(yq, wq):
            skipped += 1
            continue
        g = {"impressions": wq.sum(), "positives": wq[yq == 1].sum(), "uniform": 1.0}[weighting]
        total += g * skm.roc_auc_score(yq, sq, sample_weight=wq)
        weights += g
        used += 1
    return (total / weights if weights > 0 else None), used, skipped


REFERENCES: dict[str, Reference] = {
    "accuracy": accuracy,
    "auc": auc,
    "average_precision": average_precision,
    "brier": brier,
    "calibration": calibration,
    "f1": f1,
    "fbeta": fbeta,
    "fn": _count(2),
    "fp": _count(1),
    "label_mean": label_mean,
    "logloss": logloss,
    "mcc": mcc,
    "precision": precision,
    "recall": recall,
    "score_mean": score_mean,
    "specificity": specificity,
    "tn": _count(0),
    "tp": _count(3),
}
