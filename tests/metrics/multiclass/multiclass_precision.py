"""multiclass_precision: scikit-learn's precision_recall_fscore_support(average=...,
zero_division=nan), its precision column; nan is NULL."""

import numpy as np
from sklearn import metrics as skm

from metrics.multiclass._common import none_if_nan


def REFERENCE(y, p, w, average="macro"):
    values = skm.precision_recall_fscore_support(y, p, beta=1.0, average=average, sample_weight=w, zero_division=np.nan)
    return none_if_nan(values[0])
