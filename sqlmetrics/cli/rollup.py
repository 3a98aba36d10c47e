"""``sqlmetrics rollup``: the metrics of the union of the parts whose states
(``sqlmetrics state``'s files) are given, per slice, written as ``eval`` writes its table."""

from __future__ import annotations

import argparse
import sys

from sqlmetrics.cli.arguments import state_calls
from sqlmetrics.cli.evaluate import intervals_line
from sqlmetrics.cli.output import PROG, compute_and_write, warn_if_no_rows_used
from sqlmetrics.states import common_meta, read_states, rolled_up, rollup_binding


def run_rollup(args: argparse.Namespace) -> None:
    states = read_states(args.source)
    meta = common_meta(states)
    calls = None if args.metrics is None else state_calls(args.metrics, meta)
    binding = rollup_binding(meta, args.by, calls, args.ci)
    result = compute_and_write(args, rolled_up, states, binding)
    warn_if_no_rows_used(result)
    if args.ci is not None:
        sys.stderr.write(f"{PROG}: {intervals_line(list(binding.calls), args.ci, query=binding.query)}\n")
