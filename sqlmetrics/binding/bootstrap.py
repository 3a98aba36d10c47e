"""The Poisson bootstrap, computed inside the composed query.

``evaluate(..., ci=0.95, ci_method="bootstrap", resamples=200, seed=0, ci_unit=None)``
evaluates every resampled metric ``resamples + 1`` times in one statement (a call's
metrics with an analytic interval run once, in a statement of their own: ``api.run``): replicate 0 with the
rows' own weights (the metric's value), and replicates 1..R with each weight multiplied
by a Poisson(1) count drawn per row, or per unit (``ci_unit="user_id"``: all of a user's
rows share the count, the clustered bootstrap, for rows that are not independent). The
interval is the percentile interval of the R replicate values: their (1 − ci)/2 and
(1 + ci)/2 quantiles, linearly interpolated (numpy's default). A slice where any
replicate is undefined (a resample without positives, say) gets NULL bounds.

The counts are a deterministic function of (unit, replicate, seed), the same in SQL and
polars, so both engines draw the same resamples and agree to 1e-9, and the same seed
gives the same interval:

* the unit's number: ``DENSE_RANK() OVER (ORDER BY unit)`` with ``ci_unit``, else the
  row's number in the order of all its bound columns and its weight (NULL when the row
  is excluded): rows that tie there are equal, so which gets which number changes
  nothing, and the order of the source's rows does not matter (NULLs sort last, text in
  byte order);
* an integer hash in the prime field of p = 2³¹ − 1, which every dialect computes
  exactly in BIGINT: h₁ = (a·(id mod p) + b·replicate + c·seed + d) mod p, then twice
  h ← (h² + e) mod p, and u = h / p in [0, 1) (so a seed is an integer from 0 to
  2³¹ − 2, each drawing its own resamples; any other is refused);
* the count: the smallest k with u < F(k), F the Poisson(1) distribution function
  (counts above 10, probability 1e-8, are 10).

It is a hash, not a random number generator: ``tests/test_bootstrap.py`` checks that
the counts follow Poisson(1) and are uncorrelated across rows, units and replicates.
The statement reads the source once, and every resampled metric is computed per slice
and replicate: the cost grows with the resamples (docs/intervals.md measures it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from sqlmetrics.errors import InvalidParameterError, Keyword, shown

REPLICATE_SLICE = "sqlmetrics_replicate"  # the slice numbering the replicates (0: the data as it is)
PRIME = 2_147_483_647  # 2³¹ − 1: products of two residues fit in a BIGINT
MAX_SEED = PRIME - 1  # the hash reads the seed modulo PRIME: a larger one would repeat a smaller one's resamples
ROW, REPLICATE, SEED, OFFSET, SQUARE = 48_271, 69_621, 40_692, 12_345, 1_103_515_245
MAX_COUNT = 10
# 10,000 resamples put a percentile interval's bounds within about 0.2% of their
# population quantiles' probabilities (1.96·√(0.025·0.975/10,000)); more only costs time
MAX_RESAMPLES = 10_000
# F(k) = P(Poisson(1) <= k), k = 0..MAX_COUNT − 1
POISSON_CDF = tuple(sum(math.exp(-1) / math.factorial(j) for j in range(k + 1)) for k in range(MAX_COUNT))


@dataclass(frozen=True)
class Bootstrap:
    """A call's bootstrap: the interval level, the resamples, the seed, the unit column
    (None: rows), and the result columns of the calls it serves."""

    level: float
    resamples: int
    seed: int
    unit: str | None
    columns: frozenset[str]


def check(resamples: object, seed: object, unit: object) -> None:
    """Raise for fewer than two resamples or more than MAX_RESAMPLES, a seed that is not
    an integer from 0 to MAX_SEED, a unit that is not a column name."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or not 2 <= resamples <= MAX_RESAMPLES:
        raise InvalidParameterError(
            Keyword("resamples"),
            f" must be an integer from 2 to {MAX_RESAMPLES:,} (e.g. 200; beyond {MAX_RESAMPLES:,} the percentile "
            f"interval's bounds hardly move, and each resample costs a pass over the rows), got {resamples!r}",
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InvalidParameterError(
            Keyword("seed"),
            f" must be an integer from 0 to {MAX_SEED} (2**31 - 2: the bootstrap's hash reads it modulo "
            f"2**31 - 1, the same in every dialect), got {seed!r}",
        )
    if unit is not None and not isinstance(unit, str):
        raise InvalidParameterError(Keyword("ci_unit"), f" must be a column name (a string), got {shown(unit)}")


# --- SQL ------------------------------------------------------------------------------


def unit_id_sql(unit: str | None, row: list[str]) -> str:
    """The SQL numbering each row's unit: its ``unit`` (a quoted column; NULL for none) or the row, in
    the order of its columns ``row`` (SQL over the source): rows that tie are equal, so
    which of them gets which number changes no metric, and every engine draws the same
    resamples (given the same order of the values: text in byte order)."""
    if unit is not None:  # a NULL unit stays NULL, as polars' rank keeps it (and the rules refuse it)
        return f"CASE WHEN {unit} IS NULL THEN NULL ELSE DENSE_RANK() OVER (ORDER BY {_nulls_last(unit)}) END"
    return f"ROW_NUMBER() OVER (ORDER BY {', '.join(map(_nulls_last, row))})"


def _nulls_last(column: str) -> str:
    """An ascending sort key with NULLs last in every dialect (each has its own default,
    and an explicit NULLS LAST inside a window does not survive every transpilation);
    spelled out for DuckDB, whose defaults a connection may change."""
    return f"CASE WHEN {column} IS NULL THEN 1 ELSE 0 END ASC NULLS LAST, {column} ASC NULLS LAST"


def replicates_sql(resamples: int) -> str:
    """A relation ``r(replicate)`` of 0..resamples, generated by the engine (a series, not
    a list of literals: the statement's size does not grow with the resamples)."""
    return f"(SELECT UNNEST(RANGE(0, {resamples + 1})) AS replicate) AS r"


def hash_steps_sql(seed: int) -> tuple[str, str, str]:
    """The three hash stages as SQL: h1 over ``unit_id`` and ``replicate``, then h2 over
    h1 and h3 over h2 (each a column of the stage before)."""
    unit, replicate = "CAST(unit_id AS BIGINT)", "CAST(replicate AS BIGINT)"  # INTEGER products overflow
    first = f"({ROW} * ({unit} % {PRIME}) + {REPLICATE} * {replicate} + {SEED * seed % PRIME + OFFSET}) % {PRIME}"
    return first, f"(h1 * h1 + {SQUARE}) % {PRIME}", f"(h2 * h2 + {OFFSET}) % {PRIME}"


def count_sql(h3: str) -> str:
    """The Poisson(1) count of the hash ``h3`` (1 on replicate 0)."""
    cuts = " ".join(f"WHEN {h3} < {math.ceil(cdf * PRIME)} THEN {k}" for k, cdf in enumerate(POISSON_CDF))
    return f"CASE WHEN replicate = 0 THEN 1 {cuts} ELSE {MAX_COUNT} END"


# --- polars ---------------------------------------------------------------------------


def counts_polars(unit_id: pl.Expr, replicate: pl.Expr, seed: int) -> pl.Expr:
    """count_sql's count in polars (Int64 arithmetic, exact as in SQL)."""
    h = (ROW * (unit_id % PRIME) + REPLICATE * replicate + (SEED * seed % PRIME + OFFSET)) % PRIME
    h = (h * h + SQUARE) % PRIME
    h = (h * h + OFFSET) % PRIME
    count = pl.lit(MAX_COUNT, pl.Int64)
    for k, cdf in reversed(list(enumerate(POISSON_CDF))):
        count = pl.when(h < math.ceil(cdf * PRIME)).then(pl.lit(k, pl.Int64)).otherwise(count)
    return pl.when(replicate == 0).then(pl.lit(1, pl.Int64)).otherwise(count)


# --- the interval ---------------------------------------------------------------------


def percentile_intervals(result: pl.DataFrame, by: list[str], bootstrap: Bootstrap) -> pl.DataFrame:
    """Replicate 0's rows of ``result`` (one per slice of ``by`` and replicate) with
    ``<column>_lo`` and ``<column>_hi`` for each column of ``bootstrap``: the percentile
    interval of replicates 1..R, NULL when any of them is NULL."""
    low, high = (1 - bootstrap.level) / 2, (1 + bootstrap.level) / 2
    replicates = result.filter(pl.col(REPLICATE_SLICE) > 0)
    bounds = []
    for column in sorted(bootstrap.columns):
        value, defined = pl.col(column), pl.col(column).null_count() == 0
        bounds += [
            pl.when(defined).then(value.quantile(low, "linear")).alias(f"{column}_lo"),
            pl.when(defined).then(value.quantile(high, "linear")).alias(f"{column}_hi"),
        ]
    intervals = replicates.group_by(by).agg(bounds) if by else replicates.select(bounds)
    point = result.filter(pl.col(REPLICATE_SLICE) == 0).drop(REPLICATE_SLICE)
    if not by:
        if point.is_empty():  # no row at all: the one row of a call without slices, no row used
            counts = {"n_rows", "n_excluded"}
            point = pl.DataFrame({c: [0 if c in counts else None] for c in point.columns}, schema=point.schema)
        return pl.concat([point, intervals], how="horizontal")
    return point.join(intervals, on=by, how="left", nulls_equal=True)
