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
rows are sorted by its slices (NULLs last). A frame function answers in the kind it is
given: a LazyFrame for a LazyFrame (computed when you collect it; the ranking functions
check labels and scores when called), a DataFrame for a DataFrame. Expressions do not validate their input:
``sm.evaluate(..., engine="polars")`` runs the same expressions after checking labels,
scores and weights.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Collection
from typing import Any, ParamSpec, TypeVar

import polars as pl

from sqlmetrics.registry import get, metric
from sqlmetrics.sources import polars_source
from sqlmetrics.spec import MetricCall

P = ParamSpec("P")
R = TypeVar("R")


def _call(name: str, given: dict[str, Any]) -> MetricCall:
    """The metric call of ``given``'s metric parameters (validated as ``sm.metric`` does)."""
    names = {param.name for param in get(name).params}
    return metric(name, **{key: value for key, value in given.items() if key in names})


def _expression(name: str, expression: Callable[P, pl.Expr]) -> Callable[P, pl.Expr]:
    """Metric ``name``'s expression, named as ``evaluate`` names its column."""

    @functools.wraps(expression)
    def named(*args: P.args, **kwargs: P.kwargs) -> pl.Expr:
        return expression(*args, **kwargs).alias(_call(name, kwargs).column)

    return named


def _frame(name: str, frame: Callable[P, R]) -> Callable[P, R]:
    """Metric ``name``'s function of a frame, its columns named as ``evaluate`` names them
    and its rows sorted by its slices."""

    @functools.wraps(frame)
    def named(*args: P.args, **kwargs: P.kwargs) -> R:
        call = _call(name, kwargs)
        by = kwargs.get("by") or []
        by = kwargs["by"] = [by] if isinstance(by, str) else list(by)  # one slice column may be a name
        result: Any = frame(*args, **kwargs)
        result = result.rename({f"{call.base_name}{c[len(call.column) :]}": c for c in call.columns})
        return result.sort(by, nulls_last=True) if by else result

    return named


class _EveryColumn:
    """The columns a scan may read: all of them."""

    def __contains__(self, name: object) -> bool:
        return True


def scan_parquet(source: str | os.PathLike[str], columns: Collection[str] | None = None) -> pl.LazyFrame:
    """Parquet files (a path, glob or directory) as the LazyFrame that
    ``sm.evaluate(source, ..., engine="polars")`` reads, so that expressions see the columns
    every engine sees: files whose path below the directory has a name starting with ``_``
    or ``.`` are skipped (with a ``sm.SkippedFilesWarning``), ``key=value`` folders are
    columns typed alike in every engine, and files of several schemas are read under one
    where no value changes (checked for ``columns``, default every column). See "Parquet
    files" in docs/guide.md.

    >>> lf = smp.scan_parquet("logs/")  # doctest: +SKIP
    >>> lf.group_by("date").agg(smp.auc("pctr", "click"))  # doctest: +SKIP
    """
    return polars_source(os.fspath(source), _EveryColumn() if columns is None else columns)


# <metrics>: written by `python -m sqlmetrics.docs --write`
from sqlmetrics.metrics.classification import accuracy as _accuracy
from sqlmetrics.metrics.classification import auc as _auc
from sqlmetrics.metrics.classification import average_precision as _average_precision
from sqlmetrics.metrics.classification import balanced_accuracy as _balanced_accuracy
from sqlmetrics.metrics.classification import brier as _brier
from sqlmetrics.metrics.classification import calibration as _calibration
from sqlmetrics.metrics.classification import f1 as _f1
from sqlmetrics.metrics.classification import fbeta as _fbeta
from sqlmetrics.metrics.classification import fn as _fn
from sqlmetrics.metrics.classification import fp as _fp
from sqlmetrics.metrics.classification import gauc as _gauc
from sqlmetrics.metrics.classification import label_mean as _label_mean
from sqlmetrics.metrics.classification import logloss as _logloss
from sqlmetrics.metrics.classification import mcc as _mcc
from sqlmetrics.metrics.classification import precision as _precision
from sqlmetrics.metrics.classification import recall as _recall
from sqlmetrics.metrics.classification import score_mean as _score_mean
from sqlmetrics.metrics.classification import specificity as _specificity
from sqlmetrics.metrics.classification import tn as _tn
from sqlmetrics.metrics.classification import tp as _tp
from sqlmetrics.metrics.multiclass import accuracy as _multiclass_accuracy
from sqlmetrics.metrics.multiclass import auc as _multiclass_auc
from sqlmetrics.metrics.multiclass import average_precision as _multiclass_average_precision
from sqlmetrics.metrics.multiclass import balanced_accuracy as _multiclass_balanced_accuracy
from sqlmetrics.metrics.multiclass import cohen_kappa as _cohen_kappa
from sqlmetrics.metrics.multiclass import f1 as _multiclass_f1
from sqlmetrics.metrics.multiclass import fbeta as _multiclass_fbeta
from sqlmetrics.metrics.multiclass import mcc as _multiclass_mcc
from sqlmetrics.metrics.multiclass import precision as _multiclass_precision
from sqlmetrics.metrics.multiclass import recall as _multiclass_recall
from sqlmetrics.metrics.off_policy import clipped_ips as _clipped_ips
from sqlmetrics.metrics.off_policy import dm as _dm
from sqlmetrics.metrics.off_policy import dr as _dr
from sqlmetrics.metrics.off_policy import dr_os as _dr_os
from sqlmetrics.metrics.off_policy import ess as _ess
from sqlmetrics.metrics.off_policy import ips as _ips
from sqlmetrics.metrics.off_policy import max_weight as _max_weight
from sqlmetrics.metrics.off_policy import mean_weight as _mean_weight
from sqlmetrics.metrics.off_policy import sndr as _sndr
from sqlmetrics.metrics.off_policy import snips as _snips
from sqlmetrics.metrics.off_policy import switch_dr as _switch_dr
from sqlmetrics.metrics.ranking import cg as _cg
from sqlmetrics.metrics.ranking import dcg as _dcg
from sqlmetrics.metrics.ranking import err as _err
from sqlmetrics.metrics.ranking import hit_rate as _hit_rate
from sqlmetrics.metrics.ranking import map as _map
from sqlmetrics.metrics.ranking import mrr as _mrr
from sqlmetrics.metrics.ranking import ndcg as _ndcg
from sqlmetrics.metrics.ranking import precision_at_k as _precision_at_k
from sqlmetrics.metrics.ranking import rank_corr as _rank_corr
from sqlmetrics.metrics.ranking import recall_at_k as _recall_at_k
from sqlmetrics.metrics.regression import mae as _mae
from sqlmetrics.metrics.regression import mape as _mape
from sqlmetrics.metrics.regression import max_error as _max_error
from sqlmetrics.metrics.regression import mean_error as _mean_error
from sqlmetrics.metrics.regression import median_absolute_error as _median_absolute_error
from sqlmetrics.metrics.regression import mse as _mse
from sqlmetrics.metrics.regression import r2 as _r2
from sqlmetrics.metrics.regression import rmse as _rmse

accuracy = _expression("accuracy", _accuracy.expr)
auc = _expression("auc", _auc.expr)
average_precision = _expression("average_precision", _average_precision.expr)
balanced_accuracy = _expression("balanced_accuracy", _balanced_accuracy.expr)
brier = _expression("brier", _brier.expr)
calibration = _expression("calibration", _calibration.expr)
cg = _frame("cg", _cg.frame)
clipped_ips = _expression("clipped_ips", _clipped_ips.expr)
cohen_kappa = _frame("cohen_kappa", _cohen_kappa.frame)
dcg = _frame("dcg", _dcg.frame)
dm = _expression("dm", _dm.expr)
dr = _expression("dr", _dr.expr)
dr_os = _expression("dr_os", _dr_os.expr)
err = _frame("err", _err.frame)
ess = _expression("ess", _ess.expr)
f1 = _expression("f1", _f1.expr)
fbeta = _expression("fbeta", _fbeta.expr)
fn = _expression("fn", _fn.expr)
fp = _expression("fp", _fp.expr)
gauc = _frame("gauc", _gauc.frame)
hit_rate = _frame("hit_rate", _hit_rate.frame)
ips = _expression("ips", _ips.expr)
label_mean = _expression("label_mean", _label_mean.expr)
logloss = _expression("logloss", _logloss.expr)
mae = _expression("mae", _mae.expr)
map = _frame("map", _map.frame)
mape = _expression("mape", _mape.expr)
max_error = _expression("max_error", _max_error.expr)
max_weight = _expression("max_weight", _max_weight.expr)
mcc = _expression("mcc", _mcc.expr)
mean_error = _expression("mean_error", _mean_error.expr)
mean_weight = _expression("mean_weight", _mean_weight.expr)
median_absolute_error = _expression("median_absolute_error", _median_absolute_error.expr)
mrr = _frame("mrr", _mrr.frame)
mse = _expression("mse", _mse.expr)
multiclass_accuracy = _frame("multiclass_accuracy", _multiclass_accuracy.frame)
multiclass_auc = _frame("multiclass_auc", _multiclass_auc.frame)
multiclass_average_precision = _frame("multiclass_average_precision", _multiclass_average_precision.frame)
multiclass_balanced_accuracy = _frame("multiclass_balanced_accuracy", _multiclass_balanced_accuracy.frame)
multiclass_f1 = _frame("multiclass_f1", _multiclass_f1.frame)
multiclass_fbeta = _frame("multiclass_fbeta", _multiclass_fbeta.frame)
multiclass_mcc = _frame("multiclass_mcc", _multiclass_mcc.frame)
multiclass_precision = _frame("multiclass_precision", _multiclass_precision.frame)
multiclass_recall = _frame("multiclass_recall", _multiclass_recall.frame)
ndcg = _frame("ndcg", _ndcg.frame)
precision = _expression("precision", _precision.expr)
precision_at_k = _frame("precision@k", _precision_at_k.frame)
r2 = _expression("r2", _r2.expr)
rank_corr = _frame("rank_corr", _rank_corr.frame)
recall = _expression("recall", _recall.expr)
recall_at_k = _frame("recall@k", _recall_at_k.frame)
rmse = _expression("rmse", _rmse.expr)
score_mean = _expression("score_mean", _score_mean.expr)
sndr = _expression("sndr", _sndr.expr)
snips = _expression("snips", _snips.expr)
specificity = _expression("specificity", _specificity.expr)
switch_dr = _expression("switch_dr", _switch_dr.expr)
tn = _expression("tn", _tn.expr)
tp = _expression("tp", _tp.expr)

__all__ = [
    "accuracy",
    "auc",
    "average_precision",
    "balanced_accuracy",
    "brier",
    "calibration",
    "cg",
    "clipped_ips",
    "cohen_kappa",
    "dcg",
    "dm",
    "dr",
    "dr_os",
    "err",
    "ess",
    "f1",
    "fbeta",
    "fn",
    "fp",
    "gauc",
    "hit_rate",
    "ips",
    "label_mean",
    "logloss",
    "mae",
    "map",
    "mape",
    "max_error",
    "max_weight",
    "mcc",
    "mean_error",
    "mean_weight",
    "median_absolute_error",
    "mrr",
    "mse",
    "multiclass_accuracy",
    "multiclass_auc",
    "multiclass_average_precision",
    "multiclass_balanced_accuracy",
    "multiclass_f1",
    "multiclass_fbeta",
    "multiclass_mcc",
    "multiclass_precision",
    "multiclass_recall",
    "ndcg",
    "precision",
    "precision_at_k",
    "r2",
    "rank_corr",
    "recall",
    "recall_at_k",
    "rmse",
    "score_mean",
    "sndr",
    "snips",
    "specificity",
    "switch_dr",
    "tn",
    "tp",
]
# </metrics>
