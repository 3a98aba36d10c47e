"""Shared pieces of the multi-class references. A metric of a predicted class takes the
used rows of one slice as lists ``y`` (labels) and ``p`` (predictions) and an array ``w``
of weights, and is only called on rows of positive total weight (scikit-learn refuses
an empty input or all-zero weights; sqlmetrics says NULL there)."""

import numpy as np


def none_if_nan(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def classes_with_weight(classes: list, w: np.ndarray) -> int:
    return len({c for c, weight in zip(classes, w) if weight > 0})
