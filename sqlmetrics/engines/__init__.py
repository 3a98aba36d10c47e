"""The engines that run a bound call: DuckDB (the composed SQL) and polars (the expressions)."""
