"""r2: scikit-learn r2_score; NULL where the positive-weight targets are constant or absent
(scikit-learn gives 1.0 or 0.0 there, nan or -inf with force_finite=False)."""

from sklearn import metrics as skm


def REFERENCE(y, p, w):
    targets = y[w > 0]
    if len(targets) == 0 or targets.min() == targets.max():
        return None
    return skm.r2_score(y, p, sample_weight=w)
