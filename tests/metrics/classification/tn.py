"""tn: the weighted true negatives of scikit-learn's confusion_matrix; NULL on an empty slice."""

from metrics.classification._common import count

REFERENCE = count(0)
