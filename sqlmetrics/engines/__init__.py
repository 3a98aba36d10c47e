"""The engines that run a bound call: DuckDB (the composed SQL) and polars (the expressions)
in-process, Spark, PostgreSQL and ClickHouse (the statement in their dialect) on a session
or connection passed in (ClickHouse: or a chdb session of the call's own)."""

# The engines that run in-process, on any source the command line reads.
LOCAL_ENGINES = ("duckdb", "polars")
