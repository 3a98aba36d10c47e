"""Packaging glue that pyproject.toml cannot express: the analyst-facing templates live in
the top-level sql/ folder and ship inside the wheel as the package ``sqlmetrics.sql``,
where ``sqlmetrics/templates.py`` reads them. Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["sqlmetrics", "sqlmetrics.*"]), "sqlmetrics.sql"],
    package_dir={"sqlmetrics.sql": "sql"},
    package_data={"sqlmetrics.sql": ["**/*.sql", "*.md"]},
)
