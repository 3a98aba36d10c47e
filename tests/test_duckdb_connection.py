"""The DuckDB engine's own connection: one database per process, a private cursor per call."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import polars as pl
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
