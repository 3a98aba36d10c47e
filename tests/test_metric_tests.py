"""The discovery of per-metric test modules (tests/metric_tests.py) fails loudly both ways."""

import shutil

import pytest

import metric_tests


def test_a_registered_metric_without_a_module_is_an_error(tmp_path, monkeypatch):
    shutil.copytree(metric_tests.ROOT / "regression", tmp_path / "regression")
    (tmp_path / "regression" / "mae.py").unlink()
    monkeypatch.setattr(metric_tests, "ROOT", tmp_path)
    metric_tests.modules.cache_clear()
    with pytest.raises(LookupError, match=r"without .*\['mae'\]"):
        metric_tests.modules("regression")
    metric_tests.modules.cache_clear()


def test_a_module_naming_no_metric_is_an_error(tmp_path, monkeypatch):
    shutil.copytree(metric_tests.ROOT / "regression", tmp_path / "regression")
    (tmp_path / "regression" / "not_a_metric.py").write_text("REFERENCE = None\n")
    monkeypatch.setattr(metric_tests, "ROOT", tmp_path)
    metric_tests.modules.cache_clear()
    with pytest.raises(LookupError, match=r"no registered metric: \['not_a_metric'\]"):
        metric_tests.modules("regression")
    metric_tests.modules.cache_clear()


FAMILIES_WITH_MODULES = sorted(p.name for p in metric_tests.ROOT.iterdir() if p.is_dir() and not p.name.startswith("_"))


@pytest.mark.parametrize("family", FAMILIES_WITH_MODULES)
def test_every_metric_of_a_family_with_test_modules_is_discovered(family):
    assert set(metric_tests.modules(family)) == {
        name for name, spec in metric_tests.sm.registry().items() if spec.family == family
    }
