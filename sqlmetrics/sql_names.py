"""User names in the SQL the library writes: any text is just a name."""

from __future__ import annotations

from sqlglot import exp


def quote(name: str) -> str:
    """A column (or table part) name as a quoted DuckDB identifier."""
    return exp.to_identifier(name, quoted=True).sql("duckdb")
