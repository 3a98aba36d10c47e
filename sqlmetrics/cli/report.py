"""``sqlmetrics report``: one self-contained HTML report, its notices on stderr."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from typing import Any

import sqlmetrics
from sqlmetrics.cli.arguments import binding_calls, binding_kwargs, paired_kwargs, read_sources, state_calls
from sqlmetrics.cli.messages import PROG, UsageError
from sqlmetrics.cli.output import warn_no_rows
from sqlmetrics.errors import LongBootstrapWarning, NoRowsUsedWarning, SlicesNotShownWarning
from sqlmetrics.running.progress import on_terminal
from sqlmetrics.states import common_meta, is_state, read_states


def run_report(args: argparse.Namespace) -> None:
    source, second = read_sources(args)
    calls = binding_calls(args)
    if is_state(source):  # the states say whether --metrics names the multi-class metrics
        calls = state_calls(args.metrics, common_meta(read_states(source)))
    kwargs = binding_kwargs(args) | second
    if (args.arm is None) != (args.baseline is None):
        raise UsageError("report: --arm and --baseline go together")
    kwargs |= paired_kwargs(args, "report")
    line = on_terminal(f"writing the report of {args.source}", shown=not args.quiet)
    caught: list[warnings.WarningMessage] = []
    shows = warnings.showwarning
    with line, warnings.catch_warnings():
        warnings.simplefilter("always", NoRowsUsedWarning)
        warnings.simplefilter("always", SlicesNotShownWarning)
        warnings.showwarning = _said_at_once(shows, caught)
        path = sqlmetrics.report(
            source, calls, **kwargs, arm=args.arm, baseline=args.baseline,
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
        quiet = isinstance(warning.message, (NoRowsUsedWarning, SlicesNotShownWarning))
        if not quiet and str(warning.message) not in notices:
            # e.g. skipped files, once although the report reads the source for each of its parts
            notices.add(str(warning.message))
            warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)
    print(f"wrote {path}", file=sys.stderr)


def _said_at_once(shows: Callable[..., None], caught: list[warnings.WarningMessage]) -> Callable[..., None]:
    """A ``warnings.showwarning`` for the report's block, whose warnings go to ``caught``, to
    be said when it ends, but a long bootstrap's (``LongBootstrapWarning``): said by
    ``shows`` at once, as it starts, and once (the report may run it for several parts)."""
    said: set[str] = set()

    def show(message: Warning | str, category: type[Warning], *where: Any, **more: Any) -> None:
        if not issubclass(category, LongBootstrapWarning):
            caught.append(warnings.WarningMessage(message, category, *where, **more))
        elif str(message) not in said:
            said.add(str(message))
            shows(message, category, *where, **more)

    return show
