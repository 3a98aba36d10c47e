"""``sqlmetrics state``: what a source's metrics need to be rolled up with other parts
(``sm.state``), written to a Parquet file that ``sqlmetrics rollup`` reads."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl

import sqlmetrics
from sqlmetrics.cli.arguments import binding_calls, column_kwargs, read_sources
from sqlmetrics.cli.messages import PROG, UsageError
from sqlmetrics.cli.output import compute_and_write


def run_state(args: argparse.Namespace) -> None:
    if Path(args.output).suffix != ".parquet":
        raise UsageError(
            f"state: --output {args.output} is not a .parquet file: a state is written as Parquet, and rollup reads "
            "a directory's *.parquet files (e.g. --output states/day=2026-11-01.parquet)"
        )
    source, second = read_sources(args)
    calls = binding_calls(args)
    kept = compute_and_write(
        args,
        sqlmetrics.state,
        source,
        calls,
        **column_kwargs(args),
        **second,
        score_digits=args.score_digits,
    )
    sys.stderr.write(f"{PROG}: wrote {args.output}: {written(kept)}\n")


def written(kept: pl.DataFrame) -> str:
    """A state's rows, in all and per part: ``1,206 rows (base 1,000, gauc 203, slices 2, meta 1)``."""
    parts = kept.group_by("state_part", maintain_order=True).len()
    counted = ", ".join(f"{part} {rows:,}" for part, rows in parts.iter_rows())
    return f"{kept.height:,} rows ({counted})"
