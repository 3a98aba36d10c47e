"""The metrics as polars expressions: ``import sqlmetrics.polars as smp``.

    lf.group_by("date").agg(smp.auc("pctr", "click"), smp.logloss("pctr", "click"))
    lf.select(smp.auc("pctr", "click").over("country"))
    smp.gauc(lf, score="pctr", label="click", query="user_id", by=["date"])
    smp.ndcg(lf, score="pctr", label="click", query="request_id", k=10, by=["date"])

Each ``smp.<metric>(score, label, weight=None, **params)`` is the metric's single-level
expression (columns by name or as expressions); two-level metrics such as ``gauc`` are
functions of a frame, and so are the ranking metrics (``smp.ndcg``, ...; ``precision@k``
and ``recall@k`` are ``smp.precision_at_k`` and ``smp.recall_at_k``). Every result is
named as ``sm.evaluate`` names its column (``auc``, ``fbeta_beta_2``, ``ndcg_at_10`` and
its ``ndcg_at_10_queries``, ...), so several metrics go in one ``agg``; a frame function's
rows are sorted by its slices (NULLs last). Expressions do not validate their input:
``sm.evaluate(..., engine="polars")`` runs the same expressions after checking labels,
scores and weights.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import polars as pl

from sqlmetrics.registry import metric, registry
from sqlmetrics.spec import Metric, MetricCall


def _attribute(metric_name: str) -> str:
    return metric_name.replace("@k", "_at_k")


def _call(spec: Metric, given: dict[str, Any]) -> MetricCall:
    """The metric call of ``given``'s metric parameters (validated as ``sm.metric`` does)."""
    names = {param.name for param in spec.params}
    return metric(spec.name, **{key: value for key, value in given.items() if key in names})


def _named_expression(spec: Metric) -> Callable[..., pl.Expr]:
    expression = spec.module.expr

    @functools.wraps(expression)
    def named(*args: Any, **kwargs: Any) -> pl.Expr:
        return expression(*args, **kwargs).alias(_call(spec, kwargs).label)

    return named


def _named_frame(spec: Metric) -> Callable[..., Any]:
    frame = spec.module.frame

    @functools.wraps(frame)
    def named(data: Any, **kwargs: Any) -> Any:
        call = _call(spec, kwargs)
        result = frame(data, **kwargs)
        result = result.rename({f"{call.base_name}{c[len(call.label) :]}": c for c in call.columns})
        by = kwargs.get("by") or []
        by = [by] if isinstance(by, str) else list(by)
        return result.sort(by, nulls_last=True) if by else result

    return named


def __getattr__(name: str) -> Any:
    spec = next((s for metric_name, s in registry().items() if _attribute(metric_name) == name), None)
    if spec is None:
        raise AttributeError(f"module 'sqlmetrics.polars' has no attribute {name!r}")
    return _named_expression(spec) if hasattr(spec.module, "expr") else _named_frame(spec)


def __dir__() -> list[str]:
    return sorted(map(_attribute, registry()))
