"""The README's metrics table is the registry's."""

from pathlib import Path

from sqlmetrics.docs import metrics_table

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_lists_every_metric_as_registered():
    text = README.read_text(encoding="utf-8")
    table = text.split("<!-- metrics -->\n", 1)[1].split("\n<!-- /metrics -->", 1)[0]
    assert table == metrics_table(), "regenerate with: python -m sqlmetrics.docs"
