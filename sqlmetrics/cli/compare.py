"""``sqlmetrics compare``: two scores of the same rows (``--scores``; ``--predictions``
for two predicted classes) or arms
(``--arm``, ``--baseline``), each metric's difference with its interval and p-value."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import polars as pl

import sqlmetrics
from sqlmetrics.cli.arguments import binding_calls, compared_kwargs, paired_kwargs, read_sources
from sqlmetrics.cli.messages import UsageError
from sqlmetrics.cli.output import compute_and_write, output_format
from sqlmetrics.compare import p_values_as_text
from sqlmetrics.html_report import numbers


def run_compare(args: argparse.Namespace) -> None:
    calls = binding_calls(args)
    source, second = read_sources(args)
    kwargs = compared_kwargs(args) | second
    paired = paired_kwargs(args, "compare")
    if paired:
        if args.arm is not None or args.baseline is not None:
            raise UsageError(
                "compare: pass either --scores or --predictions (the same rows) or --arm and --baseline (arms), "
                "not both"
            )
        kwargs |= paired
        compute_and_write(args, sqlmetrics.compare, source, calls, shown=_shown(args), **kwargs)
        return
    if args.arm is None or args.baseline is None:
        raise UsageError(
            "compare needs --scores BASELINE,CANDIDATE (two scores of the same rows; --predictions for two predicted "
            "classes) or --arm COLUMN --baseline VALUE (arms that saw different rows)"
        )
    compute_and_write(
        args, sqlmetrics.compare, source, calls, arm=args.arm, baseline=args.baseline,
        shown=_shown(args), **kwargs,
    )  # fmt: skip


def _shown(args: argparse.Namespace) -> Callable[[pl.DataFrame], pl.DataFrame] | None:
    """How a table for a person shows the comparison: a p-value at the bootstrap's floor as
    the bound it is (``< 0.00996``), the others as the report writes them (four decimals,
    ``< 0.0001`` below: not ``0.000000``), an empty ``note`` blank. CSV, JSON and Parquet
    keep the number and ``p_bound``, for programs to read."""
    if output_format(args.format, args.output) != "table":
        return None
    return lambda comparison: p_values_as_text(comparison, numbers.p_value)
