"""The polars engine: the same plan as the composed SQL, computed with the metrics'
polars expressions over LazyFrames.

``base`` (rows grouped by slice, [query,] score and label) is the one scan of the source;
the checks read it; every single-level metric is its polars expression evaluated on the
score histogram with the summed weights as weights (which gives the row-level value),
and two-level metrics (gauc) call their frame function on the valid part of ``base``.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from sqlmetrics.binding import Binding, check_schema
from sqlmetrics.checks import bad_weight_polars, checks_for, raise_failed
from sqlmetrics.sources import polars_source


def run(binding: Binding, source: Any) -> pl.DataFrame:
    lf = polars_source(source)
    check_schema(binding, {name: str(dtype) for name, dtype in lf.collect_schema().items()})
    base = _base(binding, lf).collect(engine="streaming")
    raise_failed(base, checks_for(binding.calls, binding.weight is not None), binding.roles)

    slices = list(binding.slices)
    valid = base.filter(~pl.col("excluded"))
    results = _row_counts(binding, base)
    single = [call for call in binding.calls if hasattr(call.spec.module, "expr")]
    if single:
        hist = valid.group_by([*slices, "score", "label"]).agg(pl.col("w").sum())
        exprs = [call.spec.module.expr("score", "label", "w", **call.kwargs).alias(call.label) for call in single]
        results = results.join(hist.group_by(slices).agg(exprs), on=slices, how="left", nulls_equal=True)
    for call in binding.calls:
        if call in single:
            continue
        frame = call.spec.module.frame(
            valid, score="score", label="label", query="query", weight="w", by=slices, **call.kwargs
        )
        renamed = frame.rename({f"{call.spec.name}{c[len(call.label):]}": c for c in call.columns})
        results = results.join(renamed, on=slices, how="left", nulls_equal=True)

    counts = [f"{call.label}_{out}" for call in binding.calls for out in call.spec.outputs]
    results = results.with_columns(pl.col(counts).fill_null(0))
    if binding.by:
        results = results.sort(slices, nulls_last=True)
    results = results.rename(dict(zip(slices, binding.by)))
    return results.select(binding.output_columns)


def _base(binding: Binding, lf: pl.LazyFrame) -> pl.LazyFrame:
    """Rows grouped by slice, [query,] score, label and excluded: the one scan."""
    roles = binding.roles
    slices = [pl.col(c).alias(s) for s, c in zip(binding.slices, binding.by)] or [pl.lit(0, pl.Int32).alias("slice_0")]
    columns = [
        *slices,
        pl.col(roles["label"]).cast(pl.Float64).alias("label"),
        pl.col(roles["score"]).cast(pl.Float64).alias("score"),
        (pl.col(roles["weight"]).cast(pl.Float64) if "weight" in roles else pl.lit(1.0)).alias("weight"),
        pl.any_horizontal(pl.col(c).is_null() for c in roles.values()).alias("excluded"),
    ]
    keys = [*binding.slices, "score", "label", "excluded"]
    if binding.needs_query:
        columns.append(pl.col(roles["query"]).alias("query"))
        keys.insert(len(binding.slices), "query")
    aggregates = [pl.len().cast(pl.Int64).alias("n"), pl.col("weight").sum().alias("w")]
    if binding.weight is not None:
        bad = bad_weight_polars()
        aggregates += [bad.sum().alias("n_bad_weight"), pl.col("weight").filter(bad).min().alias("bad_weight")]
    return lf.select(columns).group_by(keys).agg(aggregates)


def _row_counts(binding: Binding, base: pl.DataFrame) -> pl.DataFrame:
    excluded = pl.col("excluded")
    counts = [
        pl.col("n").filter(~excluded).sum().cast(pl.Int64).alias("n_rows"),
        pl.col("n").filter(excluded).sum().cast(pl.Int64).alias("n_excluded"),
    ]
    if not binding.by:  # one row even for an empty source
        return base.select(pl.lit(0, pl.Int32).alias("slice_0"), *counts)
    return base.group_by(list(binding.slices)).agg(counts)
