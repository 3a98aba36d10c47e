"""The metrics as polars expressions: ``import sqlmetrics.polars as smp``.

    lf.group_by("date").agg(smp.auc("pctr", "click"), smp.logloss("pctr", "click"))
    lf.select(smp.auc("pctr", "click").over("country"))
    smp.gauc(lf, score="pctr", label="click", query="user_id", by=["date"])
    smp.ndcg(lf, score="pctr", label="click", query="request_id", k=10, by=["date"])

Each ``smp.<metric>(score, label, weight=None, **params)`` is the metric's single-level
expression (columns by name or as expressions); two-level metrics such as ``gauc`` are
functions of a frame, and so are the ranking metrics (``smp.ndcg``, ...; ``precision@k``
and ``recall@k`` are ``smp.precision_at_k`` and ``smp.recall_at_k``). Expressions do not
validate their input: ``sm.evaluate(...,
engine="polars")`` runs the same expressions after checking labels, scores and weights.
"""

from __future__ import annotations

from typing import Any

from sqlmetrics.registry import registry


def _attribute(metric: str) -> str:
    return metric.replace("@k", "_at_k")


def __getattr__(name: str) -> Any:
    spec = next((s for metric, s in registry().items() if _attribute(metric) == name), None)
    if spec is None:
        raise AttributeError(f"module 'sqlmetrics.polars' has no attribute {name!r}")
    return getattr(spec.module, "expr", None) or spec.module.frame


def __dir__() -> list[str]:
    return sorted(map(_attribute, registry()))
