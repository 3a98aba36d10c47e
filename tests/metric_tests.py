"""Each metric's test module, found by the registry's names.

Convention: ``tests/metrics/<family>/<metric>.py`` holds ``REFERENCE``, a function
computing the metric from plain arrays by an independent library (scikit-learn,
numpy, brute force), and optionally ``STRATEGY`` overrides. The registry-driven
property tests take the reference from here; no hand-kept list names the metrics.
The files carry no ``test_`` prefix, so pytest does not collect them and two
families may share a metric name; they are loaded by path.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from types import ModuleType

import sqlmetrics as sm

ROOT = Path(__file__).parent / "metrics"


def _load(path: Path, family: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"metric_tests.{family}.{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def modules(family: str) -> dict[str, ModuleType]:
    """Every registered metric of ``family`` with its test module; fails loudly when a
    registered metric has none, or a module names no registered metric."""
    registered = {name for name, spec in sm.registry().items() if spec.family == family}
    files = {p.stem: p for p in (ROOT / family).glob("*.py") if not p.stem.startswith("_")}
    missing, stray = registered - files.keys(), files.keys() - registered
    if missing or stray:
        raise LookupError(
            f"{family}: registered metrics without tests/metrics/{family}/<name>.py: {sorted(missing)}; "
            f"test modules naming no registered metric: {sorted(stray)}"
        )
    return {name: _load(files[name], family) for name in sorted(registered)}


def references(family: str) -> dict:
    return {name: module.REFERENCE for name, module in modules(family).items()}
