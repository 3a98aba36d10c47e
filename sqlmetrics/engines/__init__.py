"""The engines that run a bound call: DuckDB (the composed SQL) and polars (the expressions)
in-process, Spark and PostgreSQL (the statement in their dialect) on a session or
connection passed in."""

# The engines that run in-process, on any source the command line reads.
LOCAL_ENGINES = ("duckdb", "polars")
