"""The metrics as polars expressions: ``import sqlmetrics.polars as smp``.

    lf.group_by("date").agg(smp.auc("pctr", "click"), smp.logloss("pctr", "click"))
    lf.select(smp.auc("pctr", "click").over("country"))
    smp.gauc(lf, score="pctr", label="click", query="user_id", by=["date"])

Each ``smp.<metric>(score, label, weight=None, **params)`` is the metric's single-level
expression (columns by name or as expressions); two-level metrics such as ``gauc`` are
functions of a frame. Expressions do not validate their input: ``sm.evaluate(...,
engine="polars")`` runs the same expressions after checking labels, scores and weights.
"""

from __future__ import annotations

from typing import Any

from sqlmetrics.registry import registry


def __getattr__(name: str) -> Any:
    spec = registry().get(name)
    if spec is None:
        raise AttributeError(f"module 'sqlmetrics.polars' has no attribute {name!r}")
    return getattr(spec.module, "expr", None) or spec.module.frame


def __dir__() -> list[str]:
    return sorted(registry())
