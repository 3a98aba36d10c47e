"""sqlmetrics: model-evaluation metrics as SQL templates and polars expressions.

    import sqlmetrics as sm
    sm.evaluate("logs/*.parquet", ["auc", "gauc", "logloss"], label="click",
                score="pctr", query="user_id", by="date")

Every registered metric is also a factory here: ``sm.fbeta(beta=2)`` is
``sm.metric("fbeta", beta=2)``.
"""

from __future__ import annotations

from functools import partial
from importlib.metadata import version as _installed_version
from typing import Any

from sqlmetrics.api import confusion_matrix, evaluate, interval_methods, per_class, to_sql
from sqlmetrics.compare import compare
from sqlmetrics.curves import calibration_curve, curve_sql, pr_curve, roc_curve
from sqlmetrics.errors import (
    ColumnNotFoundError,
    EngineOutOfMemoryError,
    InvalidInputError,
    InvalidParameterError,
    LongBootstrapWarning,
    NoRowsUsedWarning,
    SkippedFilesWarning,
    SlicesNotShownWarning,
    SourceError,
    SqlMetricsError,
    UnknownMetricError,
    UnsupportedInDialectError,
)
from sqlmetrics.html_report import report
from sqlmetrics.metrics.multiclass import long_scores
from sqlmetrics.registry import metric, registry
from sqlmetrics.sources.trec import read_trec_qrels, read_trec_run
from sqlmetrics.spec import Metric, MetricCall
from sqlmetrics.states import rollup, state

__all__ = [
    "ColumnNotFoundError",
    "EngineOutOfMemoryError",
    "InvalidInputError",
    "InvalidParameterError",
    "LongBootstrapWarning",
    "NoRowsUsedWarning",
    "SkippedFilesWarning",
    "SlicesNotShownWarning",
    "Metric",
    "MetricCall",
    "SourceError",
    "SqlMetricsError",
    "UnknownMetricError",
    "UnsupportedInDialectError",
    "calibration_curve",
    "compare",
    "confusion_matrix",
    "curve_sql",
    "evaluate",
    "interval_methods",
    "long_scores",
    "metric",
    "per_class",
    "pr_curve",
    "read_trec_qrels",
    "read_trec_run",
    "registry",
    "report",
    "roc_curve",
    "rollup",
    "state",
    "to_sql",
]
__version__ = _installed_version("sqlmetrics")  # written once, in pyproject.toml


def __getattr__(name: str) -> Any:
    """``sm.<metric>(**params)`` for every registered metric."""
    if name in registry():
        return partial(metric, name)
    raise AttributeError(f"module 'sqlmetrics' has no attribute {name!r}")
