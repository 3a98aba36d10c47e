"""brier: scikit-learn's brier_score_loss; NULL on zero total weight."""

from sklearn import metrics as skm


def REFERENCE(y, s, w):
    if w.sum() == 0:
        return None
    return float(skm.brier_score_loss(y, s, sample_weight=w, labels=[0, 1]))
