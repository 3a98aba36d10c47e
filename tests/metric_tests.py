"""Each metric's test module, found by the registry's names.

Convention: ``tests/metrics/<family>/<metric>.py`` holds the metric's independent
reference, in the form its family's registry-driven tests read:

* regression: ``REFERENCE(y, p, w)``, from plain arrays (scikit-learn, numpy);
* classification: ``REFERENCE(y, s, w, **params)``, from plain arrays; a metric that needs
  a query (gauc) takes its array ``q`` too and returns (value, queries used, skipped);
* multiclass: ``REFERENCE(y, p, w, **params)`` from the labels and predictions; a
  one-vs-rest metric of class scores ``PER_CLASS(positive, score, w)`` and
  ``MULTICLASS(y, scores, w, classes, average)`` (see multiclass_auc.py);
* ranking: ``PER_ORDER(ranked, judged, p)``, the value of one list in one fixed order
  (labels in rank order, the judged labels, the parameters by name), which
  tests/ranking_reference.py averages over the orders a tie policy allows; or
  ``PER_LIST(rows)`` for a metric of the rows themselves (rank_corr); with ``HITS`` and
  ``MICRO_DENOMINATOR`` where the metric has a micro average.

A registry name's ``@k`` is written ``_at_k`` in the file name (``precision_at_k.py``).
Shared helpers live in ``_``-prefixed modules (not metrics), imported as
``metrics.<family>._common``. No hand-kept list names the metrics. The files carry no
``test_`` prefix, so pytest does not collect them and two families may share a metric
name; they are loaded by path.
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
    registered = {file_stem(name) for name, spec in sm.registry().items() if spec.family == family}
    files = {p.stem: p for p in (ROOT / family).glob("*.py") if not p.stem.startswith("_")}
    missing, stray = registered - files.keys(), files.keys() - registered
    if missing or stray:
        raise LookupError(
            f"{family}: registered metrics without tests/metrics/{family}/<name>.py: {sorted(missing)}; "
            f"test modules naming no registered metric: {sorted(stray)}"
        )
    return {
        name: _load(files[file_stem(name)], family)
        for name, spec in sorted(sm.registry().items())
        if spec.family == family
    }


def file_stem(name: str) -> str:
    """The test module's file name (without .py) of a registered metric."""
    return name.replace("@k", "_at_k")


def references(family: str, only=None) -> dict:
    """Each metric's ``REFERENCE`` (of the names in ``only``, if given)."""
    return {name: module.REFERENCE for name, module in modules(family).items() if only is None or name in only}
