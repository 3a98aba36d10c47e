"""What an engine is, as a record (``Engine``): its name, its one ``run`` of a bound call's
metrics, and what else it supports. The callers (``sqlmetrics.api``, ``states``, the
curves, the tables of classes) ask the record, never the engine's name: the records and
their lookup by name are in ``sqlmetrics/engines/__init__.py``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import polars as pl

from sqlmetrics.binding import Binding
from sqlmetrics.registry import hooks as family_hooks
from sqlmetrics.rules.schema import check_schema

# A statement of a table of its own (``OwnTable.statement``): written from the binding and
# the FROM expressions of the source and the second table (or None), as ``compose`` is.
Composer = Callable[[Binding, str, "str | None"], str]


class Run(Protocol):
    """An engine's ``run``: every metric of ``binding`` over ``source`` (and ``second``: the
    judgments of a run, or long class scores), on the connection ``con`` or the Spark
    session ``spark`` (each engine reads the one it runs on, and ignores the other)."""

    def __call__(
        self, binding: Binding, source: Any, second: Any = None, *, con: Any = None, spark: Any = None
    ) -> pl.DataFrame: ...


@dataclass(frozen=True)
class OwnTable:
    """A table other than the metrics' row that a local engine computes over a source (a
    state, a curve, a table of classes, the replicates of a bootstrap from the units' sums),
    in each engine's form: ``statement`` writes the SQL that DuckDB runs, ``polars`` computes
    it with polars from ``(binding, source, second)``."""

    statement: Composer
    polars: Callable[[Binding, Any, Any], pl.DataFrame]


# An engine's runner of a table of its own: (table, binding, source, second, con).
TableRun = Callable[[OwnTable, Binding, Any, Any, Any], pl.DataFrame]


@dataclass(frozen=True)
class Engine:
    """One engine: ``name`` (``engine=`` of the entry points), ``run`` (the metrics of a
    bound call, the same signature for every engine: ``Run``) and what it supports besides.

    * ``local``: it runs in-process on any source the command line reads (Parquet paths,
      frames): the command line's ``--engine`` offers it.
    * ``table``: it computes a table of its own (``OwnTable``), or None; the entry points
      below need it.
    * ``supports_states``: ``sm.state`` (a warehouse writes the state's statement with
      ``sm.to_sql(..., state=True)`` instead).
    * ``supports_curves``: the curves (``sm.roc_curve``, ...).
    * ``supports_class_tables``: ``sm.confusion_matrix`` and ``sm.per_class``.
    * ``resamples_unit_sums``: a bootstrap by unit takes the functions of sums over rows
      from each unit's sums (``compose/unit_bootstrap.py``), R × units rows.
    * ``reports_progress``: the progress line of a long bootstrap shows its share done.
    """

    name: str
    run: Run
    local: bool = False
    table: TableRun | None = None
    supports_states: bool = False
    supports_curves: bool = False
    supports_class_tables: bool = False
    resamples_unit_sums: bool = False
    reports_progress: bool = False

    @classmethod
    def in_process(cls, name: str, run: Run, table: TableRun, reports_progress: bool = False) -> Engine:
        """An engine that runs in-process (``local``) and computes every table of its own:
        states, curves, tables of classes, the bootstrap from the units' sums."""
        supports = dict(supports_states=True, supports_curves=True, supports_class_tables=True)
        return cls(name, run, True, table, **supports, resamples_unit_sums=True, reports_progress=reports_progress)

    def __post_init__(self) -> None:
        needs_tables = self.supports_states or self.supports_curves or self.supports_class_tables
        if (needs_tables or self.resamples_unit_sums) and self.table is None:
            raise TypeError(f"engine {self.name!r} supports a table of its own but has no table runner")


def check_source_schema(binding: Binding, schema: Mapping[str, str]) -> None:
    """Raise for the source's ``schema`` breaking the core's rules (``rules.schema.check_schema``)
    or a family's on its roles' columns (``steps.Hooks.source_schema``): every engine
    checks it before its statement runs."""
    check_schema(binding, schema)
    for hooks in family_hooks():
        hooks.source_schema(binding, schema)


def check_second_schema(binding: Binding, schema: Mapping[str, str], source_schema: Mapping[str, str]) -> None:
    """Raise for the second table's ``schema`` breaking the rules of the family it belongs to
    (``steps.Hooks.second_schema``: a run's judgments, long class scores)."""
    for hooks in family_hooks():
        hooks.second_schema(binding, schema, source_schema)
