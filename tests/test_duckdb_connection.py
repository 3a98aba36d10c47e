"""The DuckDB engine's own connection: one database per process, a private cursor per call."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import duckdb
import numpy as np
import polars as pl
import pytest
from sklearn.metrics import roc_auc_score

import sqlmetrics as sm


def test_concurrent_calls_each_read_their_own_frame():
    # every call registers its frame under the same view name: on a shared connection the
    # calls would read each other's frames; each cursor has its own views
    rng = np.random.default_rng(7)
    cases = []
    for shift in range(12):
        y = rng.integers(0, 2, 3000)
        s = rng.random(3000) + y * shift / 10  # a different AUC per frame
        cases.append((pl.DataFrame({"y": y, "s": s}), roc_auc_score(y, s)))

    def error(case):
        frame, expected = case
        return abs(sm.evaluate(frame, ["auc"], label="y", score="s")["auc"].item() - expected)

    with ThreadPoolExecutor(6) as pool:
        assert max(pool.map(error, cases * 3)) < 1e-12


def test_running_out_of_memory_says_which_limits_and_leaves_the_connection_usable():
    rng = np.random.default_rng(3)
    n = 300_000
    frame = pl.DataFrame({"y": rng.integers(0, 2, n), "s": rng.random(n), "q": rng.integers(0, 50_000, n)})
    con = duckdb.connect()
    con.execute("SET memory_limit = '20MB'")
    con.execute("SET max_temp_directory_size = '0KB'")  # nowhere to spill
    with pytest.raises(sm.EngineOutOfMemoryError, match=r"memory_limit 19.0 MiB, \d+ threads.*SET memory_limit"):
        sm.evaluate(frame, ["auc", "gauc"], label="y", score="s", query="q", con=con)
    con.execute("SET memory_limit = '2GB'")
    auc = sm.evaluate(frame, ["auc"], label="y", score="s", con=con)["auc"].item()
    assert abs(auc - roc_auc_score(frame["y"], frame["s"])) < 1e-12


def test_a_refused_statement_leaves_the_connection_usable():
    con = duckdb.connect()
    bad = pl.DataFrame({"y": [0, 2, 1], "s": [0.1, 0.2, 0.3]})
    with pytest.raises(sm.InvalidInputError, match="must be 0 or 1"):
        sm.evaluate(bad, ["auc"], label="y", score="s", con=con)
    good = pl.DataFrame({"y": [0, 1, 1], "s": [0.1, 0.2, 0.3]})
    assert sm.evaluate(good, ["auc"], label="y", score="s", con=con)["auc"].item() == 1.0
