"""tp: the weighted true positives of scikit-learn's confusion_matrix; NULL on an empty slice."""

from metrics.classification._common import count

REFERENCE = count(3)
