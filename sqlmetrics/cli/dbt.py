"""``sqlmetrics dbt --output DIR``: writes the dbt package (``sqlmetrics/dbt/package.py``)
and says on stderr what it wrote: the folder, its files and macros, and whether they were
generated now (a progress line on a terminal meanwhile) or read from this version's cache."""

from __future__ import annotations

import argparse
import sys

from sqlmetrics.dbt.package import write_package
from sqlmetrics.running.progress import on_terminal


def run_dbt(args: argparse.Namespace) -> None:
    written = write_package(args.output, generating=lambda: on_terminal("generating the dbt package from sql/"))
    sys.stderr.write(written.summary() + "\n")
