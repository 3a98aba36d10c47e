"""The text generated from the registry is current: docs/metrics.md's metrics table and the
names of ``sqlmetrics.polars``; and the registry names a metric author's mistakes."""

import re
import types
from pathlib import Path

import polars as pl
import pytest

import sqlmetrics as sm
import sqlmetrics.polars as smp
from sqlmetrics.docs import (
    POLARS_END,
    POLARS_START,
    SIGNATURES,
    embedded,
    embedded_table,
    metrics_table,
    polars_names,
    role_keywords,
    with_role_keywords,
)
from sqlmetrics.engines.polars_engine.forms import RUNNERS
from sqlmetrics.registry import _check_polars_form, registry
from sqlmetrics.spec import POLARS_FORMS, Metric

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "regenerate with: python -m sqlmetrics.docs --write"


def test_the_docs_list_every_metric_as_registered():
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert embedded_table(text) == metrics_table(), REGENERATE


@pytest.mark.parametrize("module", SIGNATURES)
def test_the_public_signatures_take_every_declared_role(module):
    """Each entry point's ``# <roles>`` block is the roles' keywords as declared (the core's
    and every family's: ``registry.roles()``), so that a new role's declaration is the
    one place it is added."""
    text = (ROOT / "sqlmetrics" / module).read_text(encoding="utf-8")
    assert "# <roles>" in text
    assert with_role_keywords(text) == text, REGENERATE


def test_a_role_block_is_written_from_the_declarations():
    """The generator rewrites a stale block (a keyword missing, one left out kept out)."""
    stale = "def f(\n    # <roles>: written by `python -m sqlmetrics.docs --write`, without class_scores\n    label: str,\n    # </roles>\n):"
    written = with_role_keywords(stale)
    body = written.split("\n", 2)[2].rsplit("    # </roles>", 1)[0]
    assert body == role_keywords(("class_scores",)) and "class_scores" not in body
    assert "    prediction: str | None = None,\n" in body
    assert "    weight: str | None = None,\n    by: str | Sequence[str] | None = None,\n    judgments: Any = None,\n" in body


def test_the_polars_face_names_every_metric_as_registered():
    text = (ROOT / "sqlmetrics" / "polars.py").read_text(encoding="utf-8")
    assert embedded(text, POLARS_START, POLARS_END) == polars_names(), REGENERATE
    assert len(smp.__all__) == len(registry())
    for name, spec in registry().items():
        function = getattr(smp, name.replace("@k", "_at_k"))
        wrapped = spec.module.expr if spec.is_expression else spec.module.frame
        assert function.__wrapped__ is wrapped, name


def _module(**functions) -> types.ModuleType:
    module = types.ModuleType("sqlmetrics.metrics.example.new_metric")
    module.__dict__.update(functions)
    return module


@pytest.mark.parametrize(
    ("form", "functions", "message"),
    [
        ("bars", {}, "polars_form must be one of histogram, rows, "),
        ("", {}, "polars_form must be one of"),
        ("histogram", {"expr": print}, "needs from_histogram, which the module does not define"),
        ("lists", {"from_lists": print}, "needs frame, which the module does not define"),
    ],
)
def test_a_metric_without_its_polars_form_is_named(form, functions, message):
    spec = Metric(
        name="new_metric",
        family="example",
        summary="s",
        template="t.sql",
        intermediates=("score_hist",),
        polars_form=form,
    )
    with pytest.raises(RuntimeError, match="metric 'new_metric' \\(sqlmetrics.metrics.example.new_metric\\): "):
        _check_polars_form(spec, _module(**functions))
    with pytest.raises(RuntimeError, match=message):
        _check_polars_form(spec, _module(**functions))


def test_evaluates_docstring_names_every_analytic_interval():
    """``sm.evaluate``'s paragraph on ``ci`` names each metric that has an analytic
    interval (the ranking metrics as a family, all of whose lists give one), so that a
    reader does not take the bootstrap for one that has a formula."""
    paragraph = next(part for part in sm.evaluate.__doc__.split("\n\n") if part.strip().startswith("``ci``"))
    words = set(re.findall(r"[\w@]+", paragraph))
    analytic = [name for name, spec in registry().items() if spec.interval is not None]
    unnamed = [name for name in analytic if name not in words and registry()[name].family != "ranking"]
    assert not unnamed, f"sm.evaluate's docstring omits the analytic intervals of {unnamed}"
    assert "ranking metrics" in " ".join(paragraph.split())


def test_every_polars_form_has_a_runner():
    """The polars engine runs a metric by its form's entry in ``RUNNERS``: a form the
    registry accepts (``spec.POLARS_FORMS``) without one could not be computed, and an
    entry no form names is dead."""
    assert set(RUNNERS) == set(POLARS_FORMS)


def test_a_form_without_a_runner_is_named_when_run(monkeypatch):
    """Should a form lose its runner anyway, the polars engine names it rather than
    returning a result without the metric's column."""
    monkeypatch.delitem(RUNNERS, "frame")
    frame = pl.DataFrame({"label": [0, 1, 1, 0], "score": [0.1, 0.8, 0.4, 0.3], "query": [1, 1, 2, 2]})
    with pytest.raises(RuntimeError, match="polars form 'frame' has no runner in polars_engine.forms.RUNNERS"):
        sm.evaluate(frame, ["gauc"], score="score", query="query", engine="polars")
