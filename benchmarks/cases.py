"""Benchmark cases. Each runs in its own fresh interpreter:

    python benchmarks/cases.py CASE DATA_DIR

prints one JSON line: the case's numbers, ``seconds`` (read + compute, timed after the
imports), ``import_rss_mb`` (resident memory after the imports) and ``peak_rss_mb`` (the
process's peak RSS, VmHWM).

A case is a function ``(parquet_glob, data_dir) -> run``: it does its imports, and
``run()`` does the timed work (reading the Parquet included) and returns a dict of numbers.
Columns: label ``click``, score ``pctr`` (or ``pctr_cont``: no ties), query ``user_id``.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CASES = {}


def case(name, group, score="pctr"):
    def register(fn):
        CASES[name] = {"fn": fn, "group": group, "score": score}
        return fn

    return register


def _sqlmetrics(metrics, score, engine, query=None):
    def setup(parquet_glob, data_dir):
        import sqlmetrics as sm

        def run():
            frame = sm.evaluate(parquet_glob, metrics, label="click", score=score, query=query, engine=engine)
            return frame.row(0, named=True)

        return run

    return setup


def _sklearn_auc(score):
    def setup(parquet_glob, data_dir):
        import pyarrow.dataset as ds
        from sklearn.metrics import roc_auc_score

        files = sorted(Path(data_dir).glob("*.parquet"))

        def run():
            table = ds.dataset(files, format="parquet").to_table(columns=["click", score])
            return {"auc": roc_auc_score(table["click"].to_numpy(), table[score].to_numpy())}

        return run

    return setup


def _polars_ds_auc(score):
    def setup(parquet_glob, data_dir):
        import polars as pl
        import polars_ds as pds

        def run():
            frame = pl.scan_parquet(parquet_glob).select(auc=pds.query_roc_auc("click", score))
            return {"auc": frame.collect(engine="streaming").item()}

        return run

    return setup


@case("duckdb_scan", "scan")
def duckdb_scan(parquet_glob, data_dir):
    import duckdb

    def run():
        con = duckdb.connect()
        sum_pctr, sum_click = con.execute(
            "SELECT sum(pctr), sum(click) FROM read_parquet(?)", [parquet_glob]
        ).fetchall()[0]
        return {"sum_pctr": sum_pctr, "sum_click": int(sum_click)}

    return run


for _suffix, _score in (("", "pctr"), ("_cont", "pctr_cont")):
    case(f"sqlmetrics_auc_duckdb{_suffix}", "auc" + _suffix, _score)(_sqlmetrics(["auc"], _score, "duckdb"))
    case(f"sqlmetrics_auc_polars{_suffix}", "auc" + _suffix, _score)(_sqlmetrics(["auc"], _score, "polars"))
    case(f"sklearn_auc{_suffix}", "auc" + _suffix, _score)(_sklearn_auc(_score))
    case(f"polars_ds_auc{_suffix}", "auc" + _suffix, _score)(_polars_ds_auc(_score))

case("sqlmetrics_gauc_duckdb", "gauc")(_sqlmetrics(["gauc"], "pctr", "duckdb", query="user_id"))
case("sqlmetrics_gauc_polars", "gauc")(_sqlmetrics(["gauc"], "pctr", "polars", query="user_id"))


@case("pandas_sklearn_gauc", "gauc")
def pandas_sklearn_gauc(parquet_glob, data_dir):
    """What a pandas user writes: groupby user, roc_auc_score per user with both classes."""
    import pandas as pd
    from sklearn.metrics import roc_auc_score

    def run():
        frame = pd.read_parquet(data_dir, columns=["user_id", "click", "pctr"])
        grouped = frame.groupby("user_id", sort=False)["click"]
        both = frame[(grouped.transform("sum") > 0) & (grouped.transform("min") == 0)]
        total = weights = groups = 0
        for _, user in both.groupby("user_id", sort=False):
            n = len(user)
            total += n * roc_auc_score(user["click"].to_numpy(), user["pctr"].to_numpy())
            weights += n
            groups += 1
        return {"gauc": total / weights, "groups": groups}

    return run


@case("handwritten_gauc_duckdb", "gauc")
def handwritten_gauc_duckdb(parquet_glob, data_dir):
    import duckdb
    import handwritten

    def run():
        gauc, groups = handwritten.gauc_duckdb(duckdb.connect(), parquet_glob)
        return {"gauc": gauc, "groups": groups}

    return run


@case("handwritten_gauc_polars", "gauc")
def handwritten_gauc_polars(parquet_glob, data_dir):
    import handwritten

    def run():
        gauc, groups = handwritten.gauc_polars(parquet_glob)
        return {"gauc": gauc, "groups": groups}

    return run


_COMPOSED = ["auc", "gauc", "logloss", "calibration"]
case("sqlmetrics_composed_duckdb", "composed")(_sqlmetrics(_COMPOSED, "pctr", "duckdb", query="user_id"))
case("sqlmetrics_composed_polars", "composed")(_sqlmetrics(_COMPOSED, "pctr", "polars", query="user_id"))


def _peak_rss_mb() -> float:
    """This process's peak RSS: VmHWM belongs to the address space exec created, so, unlike
    getrusage's ru_maxrss (kept across exec on Linux), it excludes the parent's memory."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def main(argv: list[str]) -> None:
    name, data_dir = argv
    parquet_glob = str(Path(data_dir) / "*.parquet")
    run = CASES[name]["fn"](parquet_glob, data_dir)
    import_rss = _rss_mb()
    started = time.perf_counter()
    values = run()
    seconds = time.perf_counter() - started
    peak = _peak_rss_mb()
    values = {k: (v if isinstance(v, (int, float, str)) or v is None else float(v)) for k, v in values.items()}
    print(
        json.dumps(
            {
                "case": name,
                "seconds": seconds,
                "import_rss_mb": import_rss,
                "peak_rss_mb": peak,
                "values": values,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
