"""Curves as long tables: ROC, precision–recall and calibration, per slice.

Each curve is computed by a SQL template in ``sql/curves/`` (composed after the same
input, checks and score histogram as the metrics) and by polars from the same
histogram; both engines give the same rows. Curves are not metrics (they have many rows
per slice), so they live outside ``sqlmetrics/metrics/`` and the metric registry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmetrics.curves import _curve, calibration, pr, roc
from sqlmetrics.curves.calibration import calibration_curve
from sqlmetrics.curves.pr import pr_curve
from sqlmetrics.curves.roc import roc_curve
from sqlmetrics.errors import InvalidParameterError

KINDS = {"roc": roc.KIND, "pr": pr.KIND, "calibration": calibration.KIND}

__all__ = ["KINDS", "calibration_curve", "curve_sql", "pr_curve", "roc_curve"]


def curve_sql(
    kind: str,
    *,
    source: Any,
    label: str = "label",
    score: str = "score",
    weight: str | None = None,
    by: str | Sequence[str] | None = None,
    **params: Any,
) -> str:
    """The one SQL statement ``sm.<kind>_curve(..., engine="duckdb")`` runs, as
    ``sm.to_sql`` for metrics: ``kind`` is ``"roc"``, ``"pr"`` or ``"calibration"``,
    ``params`` the curve's (``drop_intermediate``, ``max_points``; ``bins``, ``strategy``).

    >>> import sqlmetrics as sm
    >>> print(sm.curve_sql("roc", source="logs/*.parquet", label="click").splitlines()[-4:])
    ['FROM curve', 'CROSS JOIN checks', 'WHERE checks.failure IS NULL', 'ORDER BY point ASC NULLS LAST']
    """
    if kind not in KINDS:
        raise InvalidParameterError(f"curve must be one of {', '.join(map(repr, KINDS))}, got {kind!r}")
    return _curve.sql(KINDS[kind], source=source, label=label, score=score, weight=weight, by=by, **params)
