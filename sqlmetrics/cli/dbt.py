"""``sqlmetrics dbt --output DIR``: writes the dbt package (``sqlmetrics/dbt_package.py``)."""

from __future__ import annotations

import argparse
import sys

from sqlmetrics.dbt_package import write_package


def run_dbt(args: argparse.Namespace) -> None:
    written = write_package(args.output)
    sys.stderr.write(f"wrote the dbt package sqlmetrics to {args.output} ({len(written)} files)\n")
