"""gauc: plain Python over scikit-learn's roc_auc_score per query. A metric that needs a
query takes its array ``q`` too and returns (gauc, queries used, queries skipped)."""

from sklearn import metrics as skm

from metrics.classification._common import both_classes


def REFERENCE(y, s, w, q, weighting="impressions"):
    """Group by query, skip one-class groups, weighted mean of the groups' AUCs."""
    total = weights = 0.0
    used = skipped = 0
    for query in dict.fromkeys(q.tolist()):
        rows = q == query
        yq, sq, wq = y[rows], s[rows], w[rows]
        if not both_classes(yq, wq):
            skipped += 1
            continue
        g = {"impressions": wq.sum(), "positives": wq[yq == 1].sum(), "uniform": 1.0}[weighting]
        total += g * skm.roc_auc_score(yq, sq, sample_weight=wq)
        weights += g
        used += 1
    return (total / weights if weights > 0 else None), used, skipped
