"""The README's metrics table is the registry's."""

from pathlib import Path

from sqlmetrics.docs import embedded_table, metrics_table

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_lists_every_metric_as_registered():
    text = README.read_text(encoding="utf-8")
    assert embedded_table(text) == metrics_table(), "regenerate with: python -m sqlmetrics.docs --write README.md"
