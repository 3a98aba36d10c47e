"""The benchmark dataset: the example impressions log plus one tie-free score column.

``prepare(rows)`` writes ``benchmarks/data/<rows>/impressions-*.parquet`` with
``examples/generate_impressions.generate(rows, seed=0)`` and then adds ``pctr_cont``:
``pctr`` plus a jitter below 1e-6 that is distinct for every row (a random permutation of
0..rows-1 scaled by 1e-6/rows). ``pctr`` has few distinct values (4-5 decimals); the
jitter makes every score distinct without changing the order of any two rows whose
``pctr`` differ (distinct ``pctr`` values are at least 1e-5 apart). A ``_manifest.json``
(ignored by Parquet readers: leading underscore) records what was generated, so a
second run with the same row count reuses the files.

Skewed logs: ``prepare(rows, users="zipf:1.6")`` writes
``benchmarks/data/<rows>-users-zipf1.6/``, the same rows with ``user_id`` drawn anew for
every row from a Zipf law of exponent 1.6 (P(user of rank k) ∝ k^-1.6): the largest user
holds 1/ζ(1.6) ≈ 44% of the rows, the next ones 14%, 7%, ..., and the tail is a long run
of users with a handful of rows. ``user_id`` is also the query of the ranking cases, so
their lists are as skewed. ``users="even"`` (the default) is the layout above, unchanged.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data"
GENERATOR = ROOT / "examples" / "generate_impressions.py"
SEED = 0
JITTER_SPAN = 1e-6
FORMAT = 1  # bump when the post-processing below changes
EVEN = "even"


def zipf_exponent(users: str) -> float | None:
    """The exponent of ``users`` ("zipf:<a>", a > 1), or None for "even"."""
    if users == EVEN:
        return None
    kind, _, exponent = users.partition(":")
    try:
        a = float(exponent)
    except ValueError:
        a = 0.0
    if kind != "zipf" or not a > 1:
        raise ValueError(f'users must be "even" or "zipf:<a>" with a > 1, got {users!r}')
    return a


def data_dir(rows: int, users: str = EVEN) -> Path:
    a = zipf_exponent(users)
    return DATA / (str(rows) if a is None else f"{rows}-users-zipf{a:g}")


def parquet_glob(rows: int, users: str = EVEN) -> str:
    return str(data_dir(rows, users) / "*.parquet")


def _generator():
    spec = importlib.util.spec_from_file_location("generate_impressions", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _manifest(rows: int, users: str = EVEN) -> dict:
    manifest = {
        "rows": rows,
        "seed": SEED,
        "format": FORMAT,
        "generator_sha256": hashlib.sha256(GENERATOR.read_bytes()).hexdigest(),
    }
    return manifest if users == EVEN else {**manifest, "users": users}


def _reusable(out: Path, wanted: dict) -> bool:
    manifest_path = out / "_manifest.json"
    return manifest_path.exists() and json.loads(manifest_path.read_text()) == wanted


def prepare(rows: int, users: str = EVEN, log=print) -> Path:
    """Make sure ``data_dir(rows, users)`` holds the dataset; returns the directory."""
    out = data_dir(rows, users)
    wanted = _manifest(rows, users)
    if _reusable(out, wanted):
        log(f"reusing {rows:,}-row dataset in {out}")
        return out
    if users != EVEN:
        return _skew_users(prepare(rows, log=log), out, wanted, zipf_exponent(users), log)
    log(f"generating {rows:,}-row dataset in {out} ...")
    (out / "_manifest.json").unlink(missing_ok=True)
    paths = _generator().generate(out, rows=rows, seed=SEED)
    rng = np.random.default_rng([SEED, rows])
    offset = 0
    for path in paths:
        frame = pl.read_parquet(path)
        k = offset + rng.permutation(frame.height)
        offset += frame.height
        frame.with_columns(pctr_cont=pl.col("pctr") + pl.Series(k * (JITTER_SPAN / rows))).write_parquet(path)
    if offset != rows:
        raise RuntimeError(f"generator wrote {offset} rows, expected {rows}")
    (out / "_manifest.json").write_text(json.dumps(wanted, indent=2) + "\n")
    return out


def _skew_users(even: Path, out: Path, wanted: dict, a: float, log) -> Path:
    """Copy the even dataset's files to ``out`` with every row's ``user_id`` drawn from
    Zipf(a): rank k with probability k^-a / ζ(a), scrambled to an id as the generator's are."""
    log(f"writing {wanted['rows']:,} rows with Zipf({a:g}) users in {out} ...")
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob("*.parquet"), out / "_manifest.json"]:
        old.unlink(missing_ok=True)
    rng = np.random.default_rng([SEED, wanted["rows"], 1])
    for path in sorted(even.glob("*.parquet")):
        frame = pl.read_parquet(path)
        rank = rng.zipf(a, frame.height)
        user_id = (rank * 0x9E3779B97F) % (1 << 40) + 10_000_000  # as generate_impressions' ids
        frame.with_columns(user_id=pl.Series(user_id, dtype=pl.Int64)).write_parquet(out / path.name)
    (out / "_manifest.json").write_text(json.dumps(wanted, indent=2) + "\n")
    return out


if __name__ == "__main__":
    import sys

    prepare(int(sys.argv[1].replace("_", "")), *sys.argv[2:3])
