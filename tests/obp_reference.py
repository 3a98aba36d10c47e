"""obp 0.5.7's off-policy estimators (``obp/ope/estimators.py``), the reference of the
off-policy family (tests/test_off_policy.py), loaded without the rest of obp.

obp declares Python < 3.11, so pip will not install it with the test extras: it is
installed beside them with ``pip install --no-deps --ignore-requires-python obp==0.5.7``
(the README's test command does), and a test that reads it fails, saying so, where it is
missing.
Its package ``__init__`` imports its policy learners, which need torch; the estimators
need numpy, scipy and scikit-learn alone (``obp.utils`` imports torch for one type
annotation of a function the estimators never call). So the module is loaded under bare
``obp`` and ``obp.ope`` packages whose ``__init__`` is not run, and, where torch is not
installed, with a stand-in module named ``torch`` present only while ``obp.utils`` is
imported (its two names the annotation reads, ``tensor`` and ``Tensor``, are ``object``).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from pathlib import Path

import pytest

INSTALL = "pip install --no-deps --ignore-requires-python obp==0.5.7 (the README's test command does)"


def estimators() -> types.ModuleType:
    """``obp.ope.estimators`` of the installed obp (the calling test fails without it,
    saying how to install it: the README's test command does)."""
    if "obp.ope.estimators" in sys.modules:
        return sys.modules["obp.ope.estimators"]
    found = importlib.util.find_spec("obp")
    if found is None or not found.submodule_search_locations:
        pytest.fail(f"obp 0.5.7, the off-policy reference, is not installed: {INSTALL}")
    root = Path(found.submodule_search_locations[0])
    for name, folder in (("obp", root), ("obp.ope", root / "ope")):
        package = types.ModuleType(name)
        package.__path__ = [str(folder)]
        sys.modules.setdefault(name, package)
    stand_in = importlib.util.find_spec("torch") is None
    if stand_in:
        sys.modules["torch"] = types.SimpleNamespace(tensor=object, Tensor=object)  # type: ignore[assignment]
    try:
        module = importlib.import_module("obp.ope.estimators")
    finally:
        if stand_in:
            del sys.modules["torch"]
    version = (root / "version.py").read_text()
    assert '"0.5.7"' in version, f"obp 0.5.7 is the reference, found {version.strip()}"
    return module
