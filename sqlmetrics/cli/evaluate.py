"""``sqlmetrics eval``: metrics over a Parquet source (or a TREC run), per slice."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import sqlmetrics
from sqlmetrics.cli.arguments import binding_calls, binding_kwargs, read_sources
from sqlmetrics.cli.output import PROG, compute_and_write, warn_if_no_rows_used
from sqlmetrics.request import ROWS


def run_eval(args: argparse.Namespace) -> None:
    calls = binding_calls(args)
    source, second = read_sources(args)
    result = compute_and_write(args, sqlmetrics.evaluate, source, calls, **binding_kwargs(args), **second)
    warn_if_no_rows_used(result)
    if args.ci is not None:
        options = {"ci_method": args.ci_method, "ci_unit": args.ci_unit, "resamples": args.resamples, "seed": args.seed}
        sys.stderr.write(f"{PROG}: {intervals_line(calls, args.ci, query=args.query, **options)}\n")


def intervals_line(calls: list, ci: float, **options: Any) -> str:
    """Which method gave each metric's interval at level ``ci`` (``sm.interval_methods``
    with its other keyword ``options``), in one line: ``intervals at 95%: auc DeLong
    (normal, clustered by user_id); ...; f1 bootstrap (percentile, 200 resamples of
    user_id, seed 0)``."""
    methods = sqlmetrics.interval_methods(calls, ci=ci, **options)
    described = []
    for row in methods.iter_rows(named=True):
        how = row["interval"]
        if row["resamples"] is not None:
            unit = "rows" if row["unit"] == "row" else row["unit"]
            how += f", {row['resamples']} resamples of {unit}, seed {row['seed']}"
        elif options.get("ci_unit") not in (None, ROWS):  # ci_unit="rows": nothing clustered
            how += f", clustered by {options['ci_unit']}"
        described.append(f"{row['metric']} {row['method']} ({how})")
    return f"intervals at {ci * 100:g}%: " + "; ".join(described)
