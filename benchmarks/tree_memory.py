"""The memory of a command with all its processes together: the peak of their summed RSS.

    python benchmarks/tree_memory.py -- pytest            # the README's test command
    python benchmarks/tree_memory.py --every 0.5 -- pytest -m "engines or scale"

runs the command, samples every ``--every`` seconds the resident memory of it and of every
process below it (xdist's workers, a Spark JVM, the private PostgreSQL server, chromium),
and prints the peak of the sum, the peak of the largest process, the wall time and the
command's exit code. Issue 42 bounds the README's command at 4 GB all together; a tool that
reports the largest process alone would miss two workers' and a JVM's sum. Linux only (it
reads /proc). Shared pages count once per process (RSS, not PSS): the sum is an upper bound.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _children() -> dict[int, list[int]]:
    """Each process's children, from /proc/*/stat."""
    below: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended while read
        below.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    return below


def _tree(root: int) -> list[int]:
    below, found, todo = _children(), [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(below.get(pid, []))
    return found


def _resident(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError):
        return 0


def measure(command: list[str], every: float) -> tuple[int, int, float, int]:
    """(peak of the summed RSS, peak of one process's RSS, wall seconds, exit code)."""
    start = time.monotonic()
    process = subprocess.Popen(command)
    peak_sum = peak_one = 0
    while process.poll() is None:
        sizes = [_resident(pid) for pid in _tree(process.pid)]
        peak_sum, peak_one = max(peak_sum, sum(sizes)), max([peak_one, *sizes])
        time.sleep(every)
    return peak_sum, peak_one, time.monotonic() - start, process.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--every", type=float, default=1.0, help="seconds between samples (default 1)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    arguments = parser.parse_args(argv)
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    if not command:
        parser.error("no command: give it after --")
    peak_sum, peak_one, wall, code = measure(command, arguments.every)
    gib = 1024**3
    print(
        f"all processes together: peak {peak_sum / gib:.2f} GiB; largest process: peak {peak_one / gib:.2f} GiB; "
        f"wall {wall / 60:.1f} min; exit code {code}",
        file=sys.stderr,
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
