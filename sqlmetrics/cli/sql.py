"""``sqlmetrics sql``: the statement ``eval`` (or ``compare``) runs, for a dialect; with
``--state`` or ``--rollup``, the statements of a roll-up (``to_sql``'s ``state=True`` and
``rollup=True``)."""

from __future__ import annotations

import argparse
import sys

import sqlmetrics
from sqlmetrics.cli.arguments import binding_calls, binding_kwargs, paired_kwargs, read_sources
from sqlmetrics.errors import SqlMetricsError


def run_sql(args: argparse.Namespace) -> None:
    if (args.source is None) == (args.table is None):
        raise SqlMetricsError("give the source as SOURCE (a Parquet path or a table name) or as --table NAME, once")
    if args.table is not None:
        args.source = args.table
    source, second = read_sources(args, paths=False)
    kwargs = binding_kwargs(args, paths=False) | paired_kwargs(args, "sql")
    statement = sqlmetrics.to_sql(
        binding_calls(args),
        source=source,
        dialect=args.dialect,
        arm=args.arm,
        state=args.state,
        rollup=args.rollup,
        **kwargs,
        **second,
    )
    sys.stdout.write(statement.rstrip("\n") + "\n")
