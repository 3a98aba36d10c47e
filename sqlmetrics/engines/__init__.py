"""The engines that run a bound call: DuckDB (the composed SQL) and polars (the expressions)
in-process, Spark, PostgreSQL and ClickHouse (the statement in their dialect) on a session
or connection passed in (ClickHouse: or a chdb session of the call's own).

Each engine is a record (``record.Engine``: its ``run`` and what it supports), declared
as ``ENGINE`` in its module and listed here; ``engine_named`` looks one up by name. The
warehouse engines share their skeleton (``warehouse.py``)."""

from __future__ import annotations

from collections.abc import Callable

from sqlmetrics.engines import clickhouse_engine, duckdb_engine, polars_engine, postgres_engine, spark_engine
from sqlmetrics.engines.record import Engine
from sqlmetrics.errors import InvalidParameterError

# Every engine, in the order the messages list them.
ENGINES: tuple[Engine, ...] = (
    duckdb_engine.ENGINE,
    polars_engine.ENGINE,
    spark_engine.ENGINE,
    postgres_engine.ENGINE,
    clickhouse_engine.ENGINE,
)
# The engines that run in-process, on any source the command line reads.
LOCAL_ENGINES = tuple(engine.name for engine in ENGINES if engine.local)


def engine_named(name: str, able: Callable[[Engine], bool] | None = None, hint: str = "") -> Engine:
    """The engine called ``name`` among those that are ``able`` (all of them without it),
    or an InvalidParameterError listing their names (then ``hint``)."""
    offered = [engine for engine in ENGINES if able is None or able(engine)]
    found = next((engine for engine in offered if engine.name == name), None)  # a name need not be hashable
    if found is None:
        names = ", ".join(repr(engine.name) for engine in offered)
        raise InvalidParameterError(f"engine must be one of {names}, got {name!r}{hint}")
    return found
