"""How the caller's columns map onto the canonical roles, and what the call's metrics need."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlmetrics.errors import ColumnNotFoundError, InvalidParameterError, SqlMetricsError
from sqlmetrics.spec import MetricCall

NUMERIC_TYPE_WORDS = ("int", "float", "double", "decimal", "real", "numeric", "bool")


def is_numeric_type(type_name: str) -> bool:
    """True for DuckDB's and polars' numeric and boolean type names (INTEGER, Float64, ...)."""
    kind = type_name.lower()
    return not kind.startswith("interval") and any(word in kind for word in NUMERIC_TYPE_WORDS)


@dataclass(frozen=True)
class Binding:
    """The user's column for each role, the slice columns, and the metrics to compute."""

    calls: tuple[MetricCall, ...]
    label: str
    score: str
    query: str | None = None
    weight: str | None = None
    by: tuple[str, ...] = ()

    @property
    def needs_query(self) -> bool:
        return any("query" in call.spec.needs for call in self.calls)

    @property
    def slices(self) -> tuple[str, ...]:
        """Canonical slice column names; a constant ``slice_0`` when there are no slices."""
        return tuple(f"slice_{i}" for i in range(1, len(self.by) + 1)) or ("slice_0",)

    @property
    def roles(self) -> dict[str, str]:
        """Bound role -> user column; a NULL in any of these excludes the row."""
        bound = {"label": self.label, "score": self.score, "query": self.query, "weight": self.weight}
        return {role: column for role, column in bound.items() if column is not None}

    @property
    def output_columns(self) -> list[str]:
        return [*self.by, "n_rows", "n_excluded", *(col for call in self.calls for col in call.columns)]


def bind(
    calls: Sequence[MetricCall],
    *,
    label: str,
    score: str,
    query: str | None,
    weight: str | None,
    by: str | Sequence[str] | None,
) -> Binding:
    """Check that the roles the metrics need are bound and that names do not collide."""
    slices = (by,) if isinstance(by, str) else tuple(by or ())
    binding = Binding(tuple(calls), label, score, query, weight, slices)
    if binding.needs_query and query is None:
        needing = ", ".join(c.label for c in calls if "query" in c.spec.needs)
        raise InvalidParameterError(f"{needing} averages over queries: pass query=<the user/request/query id column>")
    if len(set(slices)) != len(slices):
        raise InvalidParameterError(f"by lists a column twice: {list(slices)}")
    clashes = sorted(set(slices) & set(binding.output_columns[len(slices) :]))
    if clashes:
        raise InvalidParameterError(f"slice column(s) {clashes} clash with result columns of the same name")
    return binding


def check_schema(binding: Binding, schema: Mapping[str, str]) -> None:
    """Raise for a bound column the source lacks, or a label/score/weight that is not numeric.

    ``schema`` maps column names to type names (DuckDB's or polars' spelling).
    """
    for role, column in [*binding.roles.items(), *(("by", c) for c in binding.by)]:
        if column not in schema:
            available = ", ".join(schema) or "none"
            raise ColumnNotFoundError(f"{role} column {column!r} not found; the source has: {available}")
        if role in ("label", "score", "weight") and not is_numeric_type(schema[column]):
            raise SqlMetricsError(f"{role} column {column!r} has type {schema[column]}; expected a number or boolean")
