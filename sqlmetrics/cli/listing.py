"""``sqlmetrics metrics``: every metric by family, fitted to the terminal, or one metric
in full (formula, parameters, reference)."""

from __future__ import annotations

import argparse
import inspect
import shutil
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import sqlmetrics
from sqlmetrics.registry import families
from sqlmetrics.spec import Metric, Param

# The families ``sqlmetrics metrics`` lists first, in this order (then any other), each
# headed by its declaration's summary (``steps.Family.summary``).
FAMILIES = ("classification", "regression", "ranking", "multiclass")


def run_metrics(args: argparse.Namespace) -> None:
    """Every metric grouped by family, fitted to the terminal; or one metric in full."""
    width = shutil.get_terminal_size((100, 24)).columns
    if args.name:
        spec = sqlmetrics.registry().get(args.name) or sqlmetrics.metric(args.name).spec
        sys.stdout.write(describe_metric(spec, width))
        return
    lines = []
    registered = sqlmetrics.registry().values()
    declared = families()
    for family in dict.fromkeys([*FAMILIES, *(spec.family for spec in registered)]):
        specs = [spec for spec in registered if spec.family == family]
        indent = 2 + max(len(spec.name) for spec in specs) + 2
        summary = declared[family].summary if family in declared else ""
        heading = f"{family} ({summary})" if summary else family
        lines += ["", *_wrapped("", heading, 2, width)]
        for spec in specs:
            lines += _wrapped(f"  {spec.name.ljust(indent - 2)}", spec.summary, indent, width)
            if spec.params:
                lines += _wrapped(" " * indent, describe_params(spec), indent, width)
    footer = "sqlmetrics metrics NAME shows one metric's formula, parameters and reference."
    lines += ["", *_wrapped("", footer, 2, width)]
    sys.stdout.write("\n".join(lines[1:]) + "\n")


def describe_metric(spec: Metric, width: int = 100) -> str:
    """One metric in full: summary, what it needs, its formula, conventions and example
    (the docstring of its polars form), parameters, reference and SQL template, within
    ``width`` columns (a paragraph of the docstring is rewrapped only when it is wider;
    its runnable example is shown as written)."""
    roles = ", ".join(spec.needs) + (" (weight optional)" if spec.weighted else " (no weights)")
    lines = [*_wrapped("", f"{spec.name} ({spec.family}): {spec.summary}", 2, width)]
    lines += [*_wrapped("", f"needs: {roles}", 2, width), ""]
    for paragraph in (inspect.getdoc(_polars_form(spec)) or "").split("\n\n"):
        rows = paragraph.splitlines()
        code = any(row.startswith((" ", ">>>", "...")) for row in rows)
        fits = max(map(len, rows), default=0) <= width
        lines += [*(rows if code or fits else _wrapped("", " ".join(rows), 0, width)), ""]
    for param in spec.params:
        lines += _wrapped("", f"{_describe_param(param)}: {param.doc}", 2, width)
    lines += [*_wrapped("", f"reference: {spec.reference}", 2, width), f"SQL: sql/{spec.template}"]
    return "\n".join(lines) + "\n"


def _polars_form(spec: Metric) -> Callable[..., Any]:
    module = spec.module
    return getattr(module, "expr", None) or getattr(module, "frame", None) or module


def _wrapped(first: str, text: str, indent: int, width: int) -> list[str]:
    """``text`` after ``first``, wrapped to ``width`` with continuation lines at ``indent``."""
    return textwrap.wrap(
        text,
        width=max(width, indent + 20),
        initial_indent=first,
        subsequent_indent=" " * indent,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def describe_params(spec: Metric) -> str:
    """``beta=1, threshold=0.5`` or ``weighting=impressions (impressions|positives|uniform)``."""
    return ", ".join(_describe_param(param) for param in spec.params) or "-"


def _describe_param(param: Param) -> str:
    if param.required:
        return f"{param.name} (required)"
    default = f"{param.default:g}" if isinstance(param.default, float) else str(param.default)
    choices = f" ({'|'.join(param.choices)})" if param.choices else ""
    return f"{param.name}={default}{choices}"
