"""``sqlmetrics report``: one self-contained HTML report, its notices on stderr."""

from __future__ import annotations

import argparse
import sys
import warnings

import sqlmetrics
from sqlmetrics.cli.arguments import binding_calls, binding_kwargs, read_sources, split_list
from sqlmetrics.cli.messages import PROG, UsageError
from sqlmetrics.cli.output import progress, warn_no_rows
from sqlmetrics.errors import NoRowsUsedWarning, SlicesNotShownWarning


def run_report(args: argparse.Namespace) -> None:
    source, judgments = read_sources(args)
    kwargs = binding_kwargs(args) | {"judgments": judgments}
    if (args.arm is None) != (args.baseline is None):
        raise UsageError("report: --arm and --baseline go together")
    scores = None if args.scores is None else split_list(args.scores, "--scores")
    if scores is not None:
        kwargs["score"] = None
    line = progress(not args.quiet and sys.stderr.isatty(), f"writing the report of {args.source}")
    with line, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NoRowsUsedWarning)
        warnings.simplefilter("always", SlicesNotShownWarning)
        path = sqlmetrics.report(
            source, binding_calls(args), **kwargs, scores=scores, arm=args.arm, baseline=args.baseline,
            max_slices=args.max_slices, engine=args.engine, output=args.output,
        )  # fmt: skip
    notices: set[str] = set()
    for warning in caught:  # the report says so too
        if isinstance(warning.message, NoRowsUsedWarning):
            warn_no_rows(warning.message.excluded, "every metric is NULL")
        if isinstance(warning.message, SlicesNotShownWarning):
            shown, total = warning.message.shown, warning.message.total
            sys.stderr.write(
                f"{PROG}: warning: the report shows the first {shown:,} of the {total:,} slices: every slice with "
                f"'{PROG} eval' and the same options, or a report with a larger --max-slices (or 'all')\n"
            )
        if not isinstance(warning.message, (NoRowsUsedWarning, SlicesNotShownWarning)) and str(warning.message) not in notices:
            # e.g. skipped files, once although the report reads the source for each of its parts
            notices.add(str(warning.message))
            warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)
    print(f"wrote {path}", file=sys.stderr)
