"""How many distinct assertions a test run checks: a pytest plugin.

    pytest -p assertion_count -o enable_assertion_pass_hook=true   # benchmarks/ on PYTHONPATH
    SQLMETRICS_ASSERTIONS=counts.json ...                          # where the counts go

A distinct assertion is one ``assert`` statement that passed in one test case: a
parametrized case counts apart, a hypothesis example does not (its examples are the
profile's depth, not more checks), and an ``assert`` in a helper module counts once for
each test case that reaches it (tests/conftest.py rewrites the helpers' asserts, so they
report too). Issue 42 asks that a faster suite keep its checks: this count, before and
after, is that measure (docs/testing.md).

At the end of the run each worker writes its part (``counts.json.gw0``...); join them with

    python benchmarks/assertion_count.py counts.json

which prints the test cases, the distinct assertions, and both by tier.
"""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from pathlib import Path

_PASSED: dict[str, set[str]] = defaultdict(set)
_TIERS: dict[str, str] = {}


def _asserting_place() -> str:
    """``file:line`` of the assert that just passed: the first frame outside pytest's and
    pluggy's code."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not any(part in name for part in ("_pytest", "pluggy", "assertion_count")):
            return f"{Path(name).name}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


def pytest_assertion_pass(item, lineno, orig, expl) -> None:
    _PASSED[item.nodeid].add(_asserting_place())


def pytest_collection_finish(session) -> None:
    for item in session.items:
        marks = {mark.name for mark in item.iter_markers()}
        _TIERS[item.nodeid] = next((tier for tier in ("engines", "scale") if tier in marks), "fast")


def pytest_sessionfinish(session) -> None:
    target = os.environ.get("SQLMETRICS_ASSERTIONS")
    if not target:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None and hasattr(session.config, "workerinput"):
        worker = session.config.workerinput["workerid"]
    if worker is None and session.config.pluginmanager.hasplugin("dsession"):
        return  # the xdist controller: its workers write the parts
    part = Path(f"{target}.{worker or 'main'}")
    passed = {test: sorted(places) for test, places in _PASSED.items()}
    part.write_text(json.dumps({"passed": passed, "tiers": _TIERS}))


def summary(target: Path) -> str:
    """The parts of one run, joined: test cases and distinct assertions, by tier."""
    passed: dict[str, set[str]] = defaultdict(set)
    tiers: dict[str, str] = {}
    for part in sorted(target.parent.glob(f"{target.name}.*")):
        data = json.loads(part.read_text())
        for test, places in data["passed"].items():
            passed[test].update(places)
        tiers.update(data["tiers"])
    cases: dict[str, int] = defaultdict(int)
    assertions: dict[str, int] = defaultdict(int)
    for test, tier in tiers.items():
        cases[tier] += 1
        assertions[tier] += len(passed.get(test, ()))
    lines = ["| tier | test cases | distinct assertions |", "|---|---:|---:|"]
    for tier in sorted(cases):
        lines.append(f"| {tier} | {cases[tier]:,} | {assertions[tier]:,} |")
    lines.append(f"| all | {sum(cases.values()):,} | {sum(assertions.values()):,} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(Path(sys.argv[1])))
