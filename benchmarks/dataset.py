"""The benchmark dataset: the example impressions log plus one tie-free score column.

``prepare(rows)`` writes ``benchmarks/data/<rows>/impressions-*.parquet`` with
``examples/generate_impressions.generate(rows, seed=0)`` and then adds ``pctr_cont``:
``pctr`` plus a jitter below 1e-6 that is distinct for every row (a random permutation of
0..rows-1 scaled by 1e-6/rows). ``pctr`` has few distinct values (4-5 decimals); the
jitter makes every score distinct without changing the order of any two rows whose
``pctr`` differ (distinct ``pctr`` values are at least 1e-5 apart). A ``_manifest.json``
(ignored by Parquet readers: leading underscore) records what was generated, so a
second run with the same row count reuses the files.
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


def data_dir(rows: int) -> Path:
    return DATA / str(rows)


def parquet_glob(rows: int) -> str:
    return str(data_dir(rows) / "*.parquet")


def _generator():
    spec = importlib.util.spec_from_file_location("generate_impressions", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _manifest(rows: int) -> dict:
    return {
        "rows": rows,
        "seed": SEED,
        "format": FORMAT,
        "generator_sha256": hashlib.sha256(GENERATOR.read_bytes()).hexdigest(),
    }


def prepare(rows: int, log=print) -> Path:
    """Make sure ``benchmarks/data/<rows>/`` holds the dataset; returns the directory."""
    out = data_dir(rows)
    manifest_path = out / "_manifest.json"
    wanted = _manifest(rows)
    if manifest_path.exists() and json.loads(manifest_path.read_text()) == wanted:
        log(f"reusing {rows:,}-row dataset in {out}")
        return out
    log(f"generating {rows:,}-row dataset in {out} ...")
    manifest_path.unlink(missing_ok=True)
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
    manifest_path.write_text(json.dumps(wanted, indent=2) + "\n")
    return out


if __name__ == "__main__":
    import sys

    prepare(int(sys.argv[1].replace("_", "")))
