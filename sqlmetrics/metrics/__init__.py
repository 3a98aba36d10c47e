"""One module per metric, grouped by family; each defines ``SPEC`` and its polars form."""
