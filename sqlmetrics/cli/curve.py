"""``sqlmetrics curve roc|pr|calibration``: a curve as a long table (on a terminal,
thinned to a screenful) and, with ``--plot``, drawn."""

from __future__ import annotations

import argparse
import shutil
import sys
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl

import sqlmetrics
from sqlmetrics.cli.messages import PROG, UsageError
from sqlmetrics.cli.output import compute_and_write, to_terminal, warn_if_empty
from sqlmetrics.curves._curve import CurveKind
from sqlmetrics.curves._thin import thin

CURVES = ("roc", "pr", "calibration")
CURVE_OPTIONS = {"roc": ("drop_intermediate", "max_points"), "calibration": ("bins", "strategy")}
CURVE_OPTIONS["pr"] = CURVE_OPTIONS["roc"]


def run_curve(args: argparse.Namespace) -> None:
    from sqlmetrics.curves import KINDS, plot

    if args.plot is not None:
        plot.check_target(args.plot)  # before the work: a missing matplotlib or an unknown image format
    function = getattr(sqlmetrics, f"{args.kind}_curve")
    columns = {"label": args.label, "score": args.score, "weight": args.weight, "by": args.by}
    screen = partial(screenful, KINDS[args.kind], args.by) if to_terminal(args) else None
    result = compute_and_write(args, function, Path(args.source), **columns, **curve_params(args), shown=screen)
    warn_if_empty(result, args.source)
    if args.plot is not None:
        plot.plot(result, KINDS[args.kind], args.by, args.plot)


def screenful(kind: CurveKind, by: list[str], curve: pl.DataFrame) -> pl.DataFrame:
    """``curve`` as shown on a terminal: thinned (the rule of ``sm.roc_curve``'s
    ``max_points``) so that the table fits the screen, with a line on stderr saying so and
    how to get every point."""
    rows = max(20, shutil.get_terminal_size((100, 40)).lines - 12)
    if curve.height <= rows:
        return curve
    per_slice = max(2, rows // (curve.select(by).n_unique() if by else 1))
    points = curve.lazy().with_row_index("point")
    if not by:  # thin() partitions by its slices (polars refuses an empty partition): one constant slice
        points = points.with_columns(unsliced=pl.lit(0))
    shown = thin(points, by or ["unsliced"], *kind.axes, max_points=per_slice).select(curve.columns).collect()
    sys.stderr.write(
        f"{PROG}: showing {shown.height} of the curve's {curve.height:,} points, thinned to fit the terminal; "
        "--output FILE (or a pipe) gets every point\n"
    )
    return shown


def curve_params(args: argparse.Namespace) -> dict[str, Any]:
    """The curve options given on the command line; an option of another curve is an error."""
    given = {
        name: value
        for name in ("drop_intermediate", "max_points", "bins", "strategy")
        if (value := getattr(args, name)) is not None
    }
    for name in given:
        if name not in CURVE_OPTIONS[args.kind]:
            curves = " and ".join(kind for kind, options in CURVE_OPTIONS.items() if name in options)
            raise UsageError(f"--{name.replace('_', '-')} applies to {curves} curves only, not {args.kind}")
    return given
