"""multiclass_fbeta: scikit-learn's precision_recall_fscore_support(average=...,
zero_division=nan), its F-beta column; nan is NULL."""

import numpy as np
from sklearn import metrics as skm

from metrics.multiclass._common import none_if_nan


def REFERENCE(y, p, w, beta=1.0, average="macro"):
    values = skm.precision_recall_fscore_support(
        y, p, beta=beta, average=average, sample_weight=w, zero_division=np.nan
    )
    return none_if_nan(values[2])
