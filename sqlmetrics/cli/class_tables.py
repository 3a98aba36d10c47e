"""``sqlmetrics confusion-matrix`` and ``sqlmetrics per-class``: the tables of
``sm.confusion_matrix`` and ``sm.per_class``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import sqlmetrics
from sqlmetrics.cli.arguments import binding_calls
from sqlmetrics.cli.output import compute_and_write, warn_if_empty
from sqlmetrics.registry import roles


def class_columns(args: argparse.Namespace) -> dict[str, Any]:
    """The roles these commands' options bind (``_class_options``: the label, the
    predicted class and the weight), and the slices."""
    return {role.name: getattr(args, role.name) for role in roles() if hasattr(args, role.name)} | {"by": args.by}


def run_confusion_matrix(args: argparse.Namespace) -> None:
    result = compute_and_write(args, sqlmetrics.confusion_matrix, Path(args.source), **class_columns(args))
    warn_if_empty(result, args.source)


def run_per_class(args: argparse.Namespace) -> None:
    calls = binding_calls(args)
    result = compute_and_write(args, sqlmetrics.per_class, Path(args.source), calls, **class_columns(args))
    warn_if_empty(result, args.source)
