"""The command line's options as the API's arguments: metric calls, columns and roles,
class scores, sources, shared by ``eval``, ``compare``, ``report`` and ``sql``."""

from __future__ import annotations

import argparse
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import sqlmetrics
from sqlmetrics.api import TABLE_ROLES
from sqlmetrics.cli.messages import UsageError
from sqlmetrics.compose.rollup import bound_in
from sqlmetrics.registry import roles, routed
from sqlmetrics.spec import MetricCall


def split_list(text: str, option: str) -> list[str]:
    """The comma separated items of ``option``'s ``text``; an empty one is an error."""
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"empty item in {option} {text!r}")
    return items


def metric_calls(specs: Sequence[tuple[str, dict[str, Any]]], bound: Collection[str]) -> list[MetricCall]:
    """The metric specs as calls, their names routed by the roles ``bound``
    (``registry.routed``: with a predicted class plain names such as ``f1`` mean the
    multi-class metrics, with class scores ``auc`` and ``average_precision`` the
    one-vs-rest ones)."""
    return [sqlmetrics.metric(routed(name, bound), **params) for name, params in specs]


def state_calls(specs: Sequence[tuple[str, dict[str, Any]]], meta: dict[str, Any]) -> list[MetricCall]:
    """The metric specs as calls of states of ``meta``'s call, routed by the roles its
    states bound."""
    return metric_calls(specs, bound_in(meta))


def binding_calls(args: argparse.Namespace) -> list[MetricCall]:
    """--metrics as calls, routed by the roles the command line binds: each role's option
    given, and the options standing for one (two predicted classes, long class scores)."""
    given = {role.name for role in roles() if getattr(args, role.name, None) is not None}
    given |= {role for option, role in STANDING_FOR.items() if getattr(args, option, None) is not None}
    return metric_calls(args.metrics, given)


# The options that bind a role under another name: --predictions (two predicted classes)
# and --long-scores (class scores as a long table).
STANDING_FOR = {"predictions": "prediction", "long_scores": "class_scores"}
EXAMPLES = {"--scores": "pctr_v1,pctr_v2", "--predictions": "class_v1,class_v2"}  # of paired columns


def paired_kwargs(args: argparse.Namespace, command: str) -> dict[str, Any]:
    """--scores or --predictions (two columns of the same rows, baseline first) as
    ``compare``'s ``scores`` or ``predictions``, with ``score`` or ``prediction`` unset;
    {} for neither."""
    if args.scores is not None and args.predictions is not None:
        raise UsageError(f"{command}: pass --scores (two scores) or --predictions (two predicted classes), not both")
    option, role = ("--predictions", "prediction") if args.predictions is not None else ("--scores", "score")
    text = getattr(args, f"{role}s")
    if text is None:
        return {}
    columns = split_list(text, option)
    if len(columns) != 2:
        raise UsageError(
            f"{option} takes two {role} columns, baseline first: {option} {EXAMPLES[option]} (got {text!r})"
        )
    if getattr(args, role) is not None:
        raise UsageError(f"{command}: {option} names both {role} columns; leave out --{role}")
    return {f"{role}s": columns, role: None}


def class_scores_kwarg(args: argparse.Namespace, paths: bool = True) -> Any:
    """--class-scores, or --long-scores with its --row-id, as ``evaluate``'s ``class_scores``
    (the long table a path, or for ``sql`` (``paths=False``) a path or a table name)."""
    if args.long_scores is None:
        if args.row_id is not None:
            raise UsageError("--row-id names the row column of --long-scores: pass --long-scores PATH")
        return args.class_scores
    if args.class_scores is not None:
        raise UsageError("give class scores either wide (--class-scores) or long (--long-scores), not both")
    if args.row_id is None:
        raise UsageError("--long-scores needs --row-id, the column naming a row in SOURCE and in the table")
    table = Path(args.long_scores) if paths else args.long_scores
    return sqlmetrics.long_scores(table, row_id=args.row_id, class_=args.long_class, score=args.long_score)


def column_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The columns and slices as keyword arguments of ``evaluate`` and ``state``; TREC
    files have fixed column names."""
    columns = {role.name: getattr(args, role.name) for role in roles() if role.name not in TABLE_ROLES}
    if args.trec:
        columns |= {"label": "relevance", "score": "score", "query": "query", "item": "item"}
    return {**columns, "by": args.by}


def binding_kwargs(args: argparse.Namespace, paths: bool = True) -> dict[str, Any]:
    """The column, class score and interval options as keyword arguments of ``evaluate``
    and ``to_sql``."""
    return {
        **column_kwargs(args),
        "class_scores": class_scores_kwarg(args, paths),
        "ci": args.ci,
        "ci_method": args.ci_method,
        "ci_unit": args.ci_unit,
        "resamples": args.resamples,
        "seed": args.seed,
    }


def compared_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """``binding_kwargs`` as ``compare`` takes them: at the 95% level unless --ci says
    another, and without class scores, which it refuses (the one-vs-rest metrics have no
    interval yet)."""
    kwargs = binding_kwargs(args) | {"ci": 0.95 if args.ci is None else args.ci}
    if kwargs.pop("class_scores") is not None:
        raise UsageError("compare: the one-vs-rest metrics (--class-scores, --long-scores) have no interval yet")
    return kwargs


def read_sources(args: argparse.Namespace, paths: bool = True) -> tuple[Any, dict[str, Any]]:
    """SOURCE, and --judgments as ``evaluate``'s keyword: Parquet paths, or with --trec
    the frames of TREC files. (The CLI has no DuckDB tables to name, so SOURCE is always
    a path or glob; for ``sql`` (``paths=False``) each is a path or a table name, as
    given.)"""
    if args.trec:
        if args.judgments is None:
            raise UsageError("--trec reads a run and its qrels: pass --judgments QRELS")
        return sqlmetrics.read_trec_run(args.source), {"judgments": sqlmetrics.read_trec_qrels(args.judgments)}
    if not paths:
        return args.source, {"judgments": args.judgments}
    return Path(args.source), {"judgments": None if args.judgments is None else Path(args.judgments)}
