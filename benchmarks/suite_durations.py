"""Where the test suite's time goes: the ``--durations=0`` report of a pytest run, summed.

    python -m pytest -v --durations=0 > run.log
    python benchmarks/suite_durations.py run.log [--top 50]

prints, in Markdown: the run's wall time, the time in every phase (setup, call,
teardown: a session fixture's start-up, Spark's or PostgreSQL's, is the setup of the
first test that asks for it), the time per file and per marker tier, and the ``--top``
slowest tests with their setup and call apart. With xdist the times are each worker's,
so they add up to about the workers' count times the wall time.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path

# "12.34s call     tests/test_x.py::test_y[param]@engines"
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)s (setup|call|teardown)\s+(\S.*)$")
# "==== 3621 passed, 24 xfailed in 1699.05s (0:28:19) ===="
_SUMMARY = re.compile(r"^=+ (.*) in (\d+(?:\.\d+)?)s")
_SCALE_FILES = ("tests/test_scale.py", "tests/test_ranking_scale.py", "tests/test_state_scale.py")
_ENGINE_FILES = ("tests/test_sql_engines.py", "tests/test_spark_plan.py")


def read(log: Path) -> tuple[dict[str, dict[str, float]], str | None, float | None]:
    """Each test's seconds by phase, and the run's summary line and wall time."""
    tests: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    summary, wall = None, None
    for line in log.read_text(errors="replace").splitlines():
        if match := _DURATION.match(line):
            seconds, phase, test = match.groups()
            tests[test.split("@", 1)[0]][phase] += float(seconds)
        elif match := _SUMMARY.match(line):
            summary, wall = match.group(1), float(match.group(2))
    return tests, summary, wall


def tier(test: str) -> str:
    """The tier a test runs in, by its file (the markers follow the files)."""
    path = test.split("::", 1)[0]
    if path in _SCALE_FILES:
        return "scale"
    if path in _ENGINE_FILES or "@engines" in test:
        return "engines"
    return "fast"


def markdown(tests: dict[str, dict[str, float]], summary: str | None, wall: float | None, top: int) -> str:
    total = {phase: sum(t[phase] for t in tests.values()) for phase in ("setup", "call", "teardown")}
    lines = [f"Run: {summary or '?'}; wall time {wall or 0:.0f} s.", ""]
    lines += ["| phase | seconds |", "|---|---:|"] + [f"| {phase} | {s:.0f} |" for phase, s in total.items()]
    by_file: dict[str, float] = defaultdict(float)
    by_tier: dict[str, float] = defaultdict(float)
    for test, phases in tests.items():
        seconds = sum(phases.values())
        by_file[test.split("::", 1)[0]] += seconds
        by_tier[tier(test)] += seconds
    lines += ["", "| tier | seconds |", "|---|---:|"]
    lines += [f"| {name} | {s:.0f} |" for name, s in sorted(by_tier.items(), key=lambda x: -x[1])]
    lines += ["", "| file | seconds |", "|---|---:|"]
    lines += [f"| `{name}` | {s:.0f} |" for name, s in sorted(by_file.items(), key=lambda x: -x[1])[:25]]
    lines += ["", f"The {top} slowest tests:", "", "| test | setup s | call s |", "|---|---:|---:|"]
    slowest = sorted(tests.items(), key=lambda item: -sum(item[1].values()))[:top]
    lines += [f"| `{test}` | {p['setup']:.1f} | {p['call']:.1f} |" for test, p in slowest]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--top", type=int, default=50)
    args = parser.parse_args()
    print(markdown(*read(args.log), args.top))


if __name__ == "__main__":
    main()
