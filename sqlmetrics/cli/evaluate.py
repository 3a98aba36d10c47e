"""``sqlmetrics eval``: metrics over a Parquet source (or a TREC run), per slice."""

from __future__ import annotations

import argparse

import sqlmetrics
from sqlmetrics.cli.arguments import binding_calls, binding_kwargs, read_sources
from sqlmetrics.cli.output import compute_and_write, warn_if_no_rows_used


def run_eval(args: argparse.Namespace) -> None:
    calls = binding_calls(args)
    source, judgments = read_sources(args)
    result = compute_and_write(args, sqlmetrics.evaluate, source, calls, **binding_kwargs(args), judgments=judgments)
    warn_if_no_rows_used(result)
